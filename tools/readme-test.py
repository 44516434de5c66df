#!/usr/bin/env python3
"""Tests the commands of README.md's marked blocks against the built tree.

A block is marked by an HTML comment on the line before its ```sh fence:

  <!-- readme-test: run -->     every command is executed, as printed
  <!-- readme-test: check -->   every command is only checked (it builds the project or
                                runs for minutes): see "Check rules" below

One command per line; a line ending in a backslash continues on the next; a line that
is only a comment or blank is skipped. Run from the source root (the script changes
there), so the README's relative paths (build/test/..., corpus/...) resolve as they
do for a reader who followed the quick start.

Run blocks: the whole block runs in one bash process (`set -o pipefail`), so an `export`
on one line holds for the next lines; each command's stdout and stderr are captured
separately. A command fails when its exit status is not 0, or when its line carries an
expectation comment `# → TEXT` and TEXT is not in its output (stdout + stderr). The
block stops at the first failure, which is reported with the command, its exit status
and its output. Each run block has a time limit (--timeout, default 90 s).

Check rules (check blocks; commands are split at `&&`, `||`, `;` and `|`):
  cmake --workflow --preset P    P is listed by `cmake --workflow --list-presets`
  cmake --preset P               P is listed by `cmake --list-presets`
  cmake --build --preset P       P is listed by `cmake --build --list-presets`
  cmake -S . -B DIR OPTIONS...   configured for real, into a scratch directory standing
                                 in for DIR, with the same options; fails on a configure
                                 error or on CMake's "Manually-specified variables were
                                 not used" (an option the project does not have)
  cmake --build DIR --target T.. DIR configured earlier in the block: ninja's dry run
                                 (-n) of the targets in the scratch directory must
                                 succeed and compile no GoogleTest source (*_test.cc)
  DIR/PATH ARGS...               (a program inside such a DIR) must be an output of
                                 that build (ninja -t query); then the whole command runs
                                 (bash, pipefail) with DIR/ replaced by build/test/ (the
                                 same program of the test build) and must exit 0
  SCRIPT ARGS...                 (any other program given by a path in the source tree,
                                 e.g. tools/*.sh) is executable and `SCRIPT --help`
                                 exits 0; every argument is a number, an existing path,
                                 or appears in that --help text (a renamed target or a
                                 removed option fails)
Anything else in a check block fails ("no rule to check it"), so that a new kind of
command gets a rule rather than a silent pass.

--break-last (the self-test, ctest readme.detects_breakage): appends an unknown option
to the last command of every marked block and succeeds only if every block then fails,
at that command. It proves that the run and check machinery can fail and reach the last
line of each block.

Exit status: 0 all commands passed (with --break-last: every block failed where
broken), 1 a command failed, 2 usage error or no marked block.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r"^<!--\s*readme-test:\s*(run|check)\s*-->\s*$")
EXPECT = re.compile(r"#\s*→\s*(.+?)\s*$")
BOGUS = "--readme-test-bogus-option"
TEST_TREE = "build/test"  # the test preset's build tree (CMakePresets.json), from the root


class Command:
    def __init__(self, text, line, expect):
        self.text = text      # the command as printed (continuations joined)
        self.line = line      # 1-based line in the README
        self.expect = expect  # text its output must contain, or None


class Block:
    def __init__(self, mode, line):
        self.mode = mode
        self.line = line
        self.commands = []


def parse(readme_text):
    """Marked blocks of the README, each with its commands."""
    blocks = []
    lines = readme_text.splitlines()
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            raise ValueError(f"line {i + 1}: readme-test mark not followed by a ``` fence")
        block = Block(m.group(1), i + 2)
        i += 2
        pending, start = "", 0
        while i < len(lines) and not lines[i].startswith("```"):
            raw = lines[i]
            if pending:
                pending += "\n" + raw
            elif raw.strip() and not raw.lstrip().startswith("#"):
                pending, start = raw, i + 1
            if pending and not raw.endswith("\\"):
                em = EXPECT.search(pending.splitlines()[-1])
                block.commands.append(Command(pending, start, em.group(1) if em else None))
                pending = ""
            i += 1
        if i >= len(lines):
            raise ValueError(f"line {block.line}: unterminated ``` fence")
        if pending:
            raise ValueError(f"line {start}: command continued past the fence")
        if not block.commands:
            raise ValueError(f"line {block.line}: marked block without commands")
        blocks.append(block)
        i += 1
    return blocks


def strip_comment(text):
    """The command without its trailing comment (shlex understands # comments)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def break_command(text):
    """The command with an unknown option appended to its last simple command."""
    tokens = strip_comment(text.replace("\\\n", " "))
    keep = re.compile(r"[\w@%+=:,./$-]+|&&|\|\||;|\|")
    return " ".join(t if keep.fullmatch(t) else shlex.quote(t) for t in tokens) + " " + BOGUS


def report(block, cmd, why, output=""):
    print(f"FAILED README.md:{cmd.line} ({block.mode} block at line {block.line}): {cmd.text}")
    print(f"  {why}")
    if output.strip():
        for out_line in output.rstrip().splitlines()[-60:]:
            print(f"  | {out_line}")


# ---- run blocks ------------------------------------------------------------------

def run_block(block, commands, timeout):
    """Executes the block's commands in one bash; returns (index of the failed command
    or None, why, output)."""
    with tempfile.TemporaryDirectory(prefix="kwire-readme-") as tmp:
        script = ["set -o pipefail"]
        for n, cmd in enumerate(commands):
            out, err = os.path.join(tmp, f"{n}.out"), os.path.join(tmp, f"{n}.err")
            script.append(f"echo {n} > {shlex.quote(os.path.join(tmp, 'current'))}")
            script.append(f"{{\n{cmd.text}\n}} > {shlex.quote(out)} 2> {shlex.quote(err)} < /dev/null")
            script.append(f"rc=$?; if [ $rc -ne 0 ]; then echo $rc > "
                          f"{shlex.quote(os.path.join(tmp, 'rc'))}; exit 1; fi")
        try:
            proc = subprocess.run(["bash", "-c", "\n".join(script)], timeout=timeout,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True

        def read(name):
            path = os.path.join(tmp, name)
            if not os.path.exists(path):
                return ""
            with open(path, errors="replace") as f:
                return f.read()

        current = int(read("current") or 0)
        output = lambda n: read(f"{n}.out") + read(f"{n}.err")
        if timed_out:
            return current, f"the block exceeded {timeout} s (at this command)", output(current)
        if proc.returncode != 0:
            rc = read("rc").strip()
            if not rc:
                return current, f"bash failed: {proc.stderr.strip()}", output(current)
            return current, f"exit status {rc}", output(current)
        for n, cmd in enumerate(commands):
            if cmd.expect is not None and cmd.expect not in output(n):
                return n, f"its output does not contain '{cmd.expect}'", output(n)
        return None, "", ""


# ---- check blocks ----------------------------------------------------------------

def split_simple(tokens):
    simple, cur = [], []
    for t in tokens:
        if t in ("&&", "||", ";", "|"):
            if cur:
                simple.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        simple.append(cur)
    return simple


class Checker:
    def __init__(self, scratch):
        self.scratch = scratch
        self.dirs = {}  # README build directory -> scratch build directory
        self.substitute = False  # the command names a program of such a directory

    def sh(self, argv):
        p = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout + p.stderr

    def preset(self, kind, name):
        argv = {"workflow": ["cmake", "--workflow", "--list-presets"],
                "configure": ["cmake", "--list-presets"],
                "build": ["cmake", "--build", "--list-presets"]}[kind]
        rc, out = self.sh(argv)
        if rc != 0:
            return f"`{' '.join(argv)}` failed", out
        if not re.search(r'^\s*"' + re.escape(name) + r'"', out, re.M):
            return f"no {kind} preset '{name}'", out
        return None

    def check(self, argv):
        """None if the simple command passes its rule, else (why, output)."""
        prog, args = argv[0], argv[1:]
        if prog == "cmake":
            if args[:2] == ["--workflow", "--preset"] and len(args) == 3:
                return self.preset("workflow", args[2])
            if args[:1] == ["--preset"] and len(args) == 2:
                return self.preset("configure", args[1])
            if args[:2] == ["--build", "--preset"] and len(args) == 3:
                return self.preset("build", args[2])
            if "-B" in args and "-S" in args:
                return self.configure(args)
            if args[:1] == ["--build"] and len(args) >= 2:
                return self.build(args)
            return "no rule to check this cmake command", ""
        for readme_dir, scratch in self.dirs.items():
            if prog.startswith(readme_dir.rstrip("/") + "/"):
                rel = os.path.relpath(prog, readme_dir)
                rc, out = self.sh(["ninja", "-C", scratch, "-t", "query", rel])
                if rc != 0:
                    return f"'{rel}' is not an output of {readme_dir}", out
                same = os.path.join(TEST_TREE, rel)
                if not os.access(same, os.X_OK):
                    return f"{same} (to run the command with) is not built", ""
                self.substitute = True
                return None
        if "/" in prog and not os.path.isabs(prog):
            if not (os.path.isfile(prog) and os.access(prog, os.X_OK)):
                return f"{prog} is not an executable file of the source tree", ""
            rc, help_text = self.sh([prog, "--help"])
            if rc != 0:
                return f"`{prog} --help` exited {rc}", help_text
            for a in args:
                if re.fullmatch(r"[0-9]+", a) or os.path.exists(a):
                    continue
                if a not in help_text:
                    return f"argument '{a}' is neither a number, a path nor in `{prog} --help`", help_text
            return None
        return "no rule to check it", ""

    def configure(self, args):
        out_args, readme_dir, i = [], None, 0
        while i < len(args):
            if args[i] == "-B":
                readme_dir = args[i + 1]
                scratch = os.path.join(self.scratch, f"b{len(self.dirs)}")
                out_args += ["-B", scratch]
                i += 2
                continue
            out_args.append(args[i])
            i += 1
        rc, out = self.sh(["cmake"] + out_args)
        if rc != 0:
            return f"configure failed (exit {rc})", out
        if "Manually-specified variables were not used" in out:
            return "an option given is not used by the project", out
        self.dirs[readme_dir] = scratch
        return None

    def build(self, args):
        readme_dir = args[1]
        if readme_dir not in self.dirs:
            return f"{readme_dir} was not configured earlier in this block", ""
        targets, i = [], 2
        while i < len(args):
            if args[i] == "--target":
                i += 1
                while i < len(args) and not args[i].startswith("-"):
                    targets.append(args[i])
                    i += 1
                continue
            if re.fullmatch(r"-j[0-9]*", args[i]):
                i += 1
                continue
            return f"no rule for the build option '{args[i]}'", ""
        if not targets:
            return "no --target to check", ""
        rc, out = self.sh(["ninja", "-C", self.dirs[readme_dir], "-n"] + targets)
        if rc != 0:
            return f"ninja's dry run of {' '.join(targets)} failed", out
        tests = sorted(set(re.findall(r"[\w/]+_test\.cc", out)))
        if tests:
            return f"the build compiles test sources: {' '.join(tests[:5])}", ""
        return None


def check_block(block, commands):
    with tempfile.TemporaryDirectory(prefix="kwire-readme-") as scratch:
        checker = Checker(scratch)
        for n, cmd in enumerate(commands):
            try:
                tokens = strip_comment(cmd.text.replace("\\\n", " "))
            except ValueError as e:
                return n, f"cannot parse: {e}", ""
            checker.substitute = False
            for argv in split_simple(tokens):
                failure = checker.check(argv)
                if failure is not None:
                    return n, failure[0], failure[1]
            if checker.substitute:
                # Programs of a build made in this block: the command runs, as printed
                # but with the test build's programs (same paths below build/test).
                text = cmd.text
                for readme_dir in checker.dirs:
                    text = re.sub(r"(?<![\w/.])" + re.escape(readme_dir.rstrip("/") + "/"),
                                  TEST_TREE + "/", text)
                p = subprocess.run(["bash", "-o", "pipefail", "-c", text], capture_output=True,
                                   text=True, stdin=subprocess.DEVNULL, timeout=60)
                if p.returncode != 0:
                    return n, f"exit status {p.returncode} (run as: {text})", p.stdout + p.stderr
    return None, "", ""


# ---- main ------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(
        description="Runs (run blocks) or checks (check blocks) the commands of the "
                    "README's blocks marked <!-- readme-test: run|check --> against the "
                    "built tree; see the top of this file for the rules.")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--readme", default=os.path.join(root, "README.md"),
                    help="the README to test (default: README.md of the source root)")
    ap.add_argument("--timeout", type=int, default=90,
                    help="seconds allowed per run block (default 90)")
    ap.add_argument("--break-last", action="store_true",
                    help="self-test: break the last command of every block, expect "
                         "every block to fail there")
    ap.add_argument("--list", action="store_true",
                    help="print the commands found, with their mode, and exit")
    opts = ap.parse_args()

    try:
        with open(opts.readme, encoding="utf-8") as f:
            blocks = parse(f.read())
    except (OSError, ValueError) as e:
        print(f"readme-test: {opts.readme}: {e}", file=sys.stderr)
        return 2
    if not blocks:
        print(f"readme-test: no <!-- readme-test: run|check --> block in {opts.readme}",
              file=sys.stderr)
        return 2
    os.chdir(root)
    if opts.list:
        for b in blocks:
            for c in b.commands:
                print(f"{b.mode:5} README.md:{c.line}: {c.text}")
        return 0

    failed = 0
    for block in blocks:
        commands = list(block.commands)
        if opts.break_last:
            last = commands[-1]
            commands[-1] = Command(break_command(last.text), last.line, None)
        if block.mode == "run":
            n, why, output = run_block(block, commands, opts.timeout)
        else:
            n, why, output = check_block(block, commands)
        if opts.break_last:
            if n == len(commands) - 1:
                print(f"ok   README.md:{block.line}: broken last command detected ({why})")
            else:
                failed += 1
                where = "nothing" if n is None else f"command at line {commands[n].line}"
                print(f"FAILED README.md:{block.line}: {block.mode} block with its last "
                      f"command broken ({commands[-1].text}): {where} failed")
                if n is not None:
                    report(block, commands[n], why, output)
            continue
        if n is None:
            print(f"ok   README.md:{block.line}: {block.mode} block, "
                  f"{len(commands)} command(s) {'executed' if block.mode == 'run' else 'checked'}")
        else:
            failed += 1
            report(block, commands[n], why, output)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
