package gotestee

// The supervisor: the library runs in a worker process (this binary with --worker),
// because some frames make a library allocate beyond any memory (a hostile count), and
// the Go runtime's "fatal error: runtime: out of memory" is not a panic recover can
// catch. The supervisor answers the hello itself, forwards every other request to the
// worker and its answer back; when the worker dies instead of answering, the request
// is answered "crashed" with the runtime's message, and the next request starts a new
// worker.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// worker is a child process running serve; its stderr is copied to ours, and its last
// lines are kept to say why it died.
type worker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	tail []string
	done chan struct{} // closed when its stderr is drained
}

func startWorker() (*worker, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	w := &worker{cmd: exec.Command(self, "--worker"), done: make(chan struct{})}
	// The worker dies with us (the runner kills us on a timeout).
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	w.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			fmt.Fprintln(os.Stderr, l)
			w.mu.Lock()
			// The death notice and its stacks; a "runtime: ..." line starts the tail
			// when nothing else has (a fatal error or panic after it starts it anew).
			if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") ||
				strings.HasPrefix(l, "runtime: ") && len(w.tail) == 0 {
				w.tail = []string{l}
			} else if len(w.tail) > 0 && len(w.tail) < 400 {
				w.tail = append(w.tail, l)
			}
			w.mu.Unlock()
		}
		io.Copy(os.Stderr, stderr) // after a line over 1 MiB: the rest as it comes
	}()
	return w, nil
}

// stop closes the worker's input and waits for it to end: first for the end of its
// stderr (Wait closes the pipe: what is unread then would be lost, the death notice
// with it), then for its exit status.
func (w *worker) stop() error {
	w.in.Close()
	<-w.done
	return w.cmd.Wait()
}

// death waits for the worker to end and says why it did: the first line of the Go
// runtime's fatal error or panic, and the innermost function of the library on its
// stack ("F at file.go:N").
func (w *worker) death(t *Testee) string {
	err := w.stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	why, where := "", ""
	for i, l := range w.tail {
		if i == 0 {
			why = l
			continue
		}
		if where != "" || i+1 >= len(w.tail) {
			continue
		}
		if fn := t.StackFunc(l); fn != "" {
			// The next line is "\t/path/file.go:N +0x..".
			loc := strings.TrimSpace(w.tail[i+1])
			if j := strings.LastIndex(loc, "/"); j >= 0 {
				loc = loc[j+1:]
			}
			if j := strings.Index(loc, " "); j >= 0 {
				loc = loc[:j]
			}
			where = fn + " at " + loc
		}
	}
	if why == "" {
		why = fmt.Sprintf("worker ended (%v)", err)
	}
	if where != "" {
		why += ", in " + t.Library + "'s " + where
	}
	return why
}

// supervise answers the runner's requests on stdin/stdout through a worker.
func (t *Testee) supervise() {
	out := bufio.NewWriter(os.Stdout)
	send := sender(out)
	var w *worker
	defer func() {
		if w != nil {
			w.stop()
		}
	}()
	lines(bufio.NewReaderSize(os.Stdin, 1<<20), func(line []byte) {
		var r Request
		if err := json.Unmarshal(line, &r); err == nil && r.Type == "hello" {
			send(t.hello())
			return
		}
		if w == nil {
			var err error
			if w, err = startWorker(); err != nil {
				Logf("cannot start a worker: %v", err)
				os.Exit(1)
			}
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		var a []byte
		if _, err := w.in.Write(line); err == nil {
			a, _ = w.out.ReadBytes('\n')
		}
		if len(a) > 0 && a[len(a)-1] == '\n' {
			out.Write(a)
			if err := out.Flush(); err != nil {
				Logf("write: %v", err)
				os.Exit(1)
			}
			return
		}
		why := w.death(t)
		w = nil
		Logf("seq %d %s: %s%s", r.Seq, r.ID, t.Died, why)
		send(Answer{Seq: r.Seq, Result: "crashed", Error: t.Died + why})
	})
}

// LimitMemory caps this process's address space at its size now plus mb MiB (and sets
// the Go runtime's soft memory limit to mb MiB): a hostile count that makes the library
// allocate more kills the worker ("fatal error: runtime: out of memory"), which the
// supervisor answers "crashed", instead of the machine. For Setup(worker=true).
func LimitMemory(mb uint64) {
	status, err := os.ReadFile("/proc/self/status")
	var now uint64
	if err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmSize:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				now = kb << 10
			}
		}
	}
	lim := now + mb<<20
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		Logf("cannot limit the worker's address space: %v", err)
	}
	debug.SetMemoryLimit(int64(mb << 20))
}
