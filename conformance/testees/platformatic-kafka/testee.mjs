#!/usr/bin/env node
// kwire conformance testee (protocol 1) for @platformatic/kafka.
//
// It answers only `validate`, and only for response frames: @platformatic/kafka
// is a client, so it parses responses (each apis/<group>/<api>-v<N>.js module's
// parseResponse) and writes requests from function arguments (createRequest),
// never the other way round. There is nothing to round-trip and no request
// decoder. See README.md.
//
// A response frame is read the way the library's connection reads one from the
// socket (dist/network/connection.js, Connection#onData): int32 size, int32
// correlation id, one byte skipped when the API says its response header has
// tagged fields, then the API's parseResponse on a Reader over the rest of the
// frame. A frame is accepted when parseResponse returns, or when it throws the
// library's ResponseError (the body was parsed and carries non-zero error codes:
// the library hands that response to the caller as an error). It is rejected
// when the library throws one of its own decode errors, and answered `crashed`
// when the parser dies of a JavaScript fault (see classify below).

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const LIB = '@platformatic/kafka';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`usage: node testee.mjs

kwire conformance testee (testee protocol 1, conformance/README.md) for
${LIB}. It reads protocol requests on stdin and answers on stdout,
one JSON object per line. Operation: validate, for response frames of the
API versions the library implements; everything else is "unsupported".

Install once:  (cd ${here} && npm ci)
Run:           kwire conformance --testee 'node ${join(here, 'testee.mjs')}' conformance/vectors
`);
  process.exit(0);
}

let lib;
try {
  lib = await import(LIB);
} catch (err) {
  if (err && (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND')) {
    process.stderr.write(`testee: ${LIB} is not installed; run "npm ci" in ${here} first\n(${err.message})\n`);
    process.exit(2);
  }
  throw err;
}

// The installed version, from the package's own package.json (its "exports"
// do not include it, so read it next to the resolved entry point dist/index.js).
const libVersion = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.resolve(LIB))), '..', 'package.json'), 'utf8')
).version;

// The library's own API table: every exported module `<name>V<N>` with an `api`
// made by createAPI(apiKey, apiVersion, createRequest, parseResponse,
// hasRequestHeaderTaggedFields, hasResponseHeaderTaggedFields). The api function
// passes all of these to connection.send(); calling it with a stand-in
// connection records them without building a request (the payload callback is
// lazy and is not called).
const table = new Map(); // "key/version" -> { module, parser, responseHeaderTaggedFields }
for (const [name, mod] of Object.entries(lib)) {
  if (!/V\d+$/.test(name) || !mod || typeof mod.api !== 'function') continue;
  mod.api({
    send(apiKey, apiVersion, _createPayload, parser, _requestHeaderTaggedFields, responseHeaderTaggedFields) {
      table.set(`${apiKey}/${apiVersion}`, { module: name, apiKey, apiVersion, parser, responseHeaderTaggedFields });
    }
  });
}
if (table.size === 0) {
  process.stderr.write(`testee: found no API modules in ${LIB} ${libVersion}\n`);
  process.exit(2);
}

const { Reader, ResponseError, GenericError } = lib;

// Which exceptions are the library's deliberate decode errors (a rejection) and
// which are a crash: an exception it does not mean to throw (protocol v1
// `crashed`, always a failure). Read off the library's source (README.md):
// * OutOfBoundsError (code OUT_OF_BOUNDS) of @platformatic/dynamic-buffer, the
//   Reader's buffer: every read checks its offset against the length and
//   throws it (dynamic-buffer dist/index.js:79-556). That is the library's
//   truncation check: a rejection.
// * the library's own errors (GenericError and its family, errors.js: PLT_KFK_*
//   codes; ResponseError is handled before, as a parsed response).
// * the one RangeError the parsers throw on purpose: apis/tagged-fields.js:11,
//   "Tagged field T declares N bytes but only M remain".
// * any other Error (plain `new Error(...)` in the library, e.g. the snappy
//   chunk checks in protocol/compression.js:42-48, or zlib's data errors) is a
//   deliberate refusal too.
// A crash is a JavaScript fault: TypeError (e.g. errors.js:133 destructuring an
// error code the table lacks, or a varint read past the last buffer), RangeError
// that is not the one above (invalid array length, stack overflow, "Invalid
// string length", a Buffer bounds error the library's own checks let through),
// ReferenceError, SyntaxError, EvalError, URIError.
const TAG_RANGE_ERROR = /^Tagged field -?\d+ declares -?\d+ bytes but only -?\d+ remain$/;
const FAULTS = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError];

function isCrash(err) {
  if (!(err instanceof Error)) return false;
  if (err.code === 'OUT_OF_BOUNDS' && err.constructor && err.constructor.name === 'OutOfBoundsError') return false;
  if (GenericError.isGenericError(err)) return false;
  if (err instanceof RangeError && TAG_RANGE_ERROR.test(err.message)) return false;
  return FAULTS.some((cls) => err instanceof cls);
}

// Where the exception was thrown: the first stack frame inside node_modules
// (the library or its dependencies), as "package/path/file.js:line".
function thrownAt(err) {
  const stack = (err && typeof err.stack === 'string') ? err.stack.split('\n') : [];
  for (const line of stack) {
    const m = /node_modules\/(.+?):(\d+):\d+\)?\s*$/.exec(line);
    if (m) return `${m[1]}:${m[2]}`;
  }
  return null;
}

function validateResponse(entry, frame) {
  // Connection#onData: `while (responseBuffer.length > INT32_SIZE)`, then the
  // size; a frame whose size exceeds the bytes is waited for, never parsed.
  if (frame.length <= 4) {
    return { result: 'rejected', error: 'frame has no bytes after the size: the connection waits for more data', offset: 0, path: 'Frame.size' };
  }
  const size = frame.readInt32BE(0);
  if (size !== frame.length - 4) {
    // Over: the connection waits for the missing bytes and never delivers this
    // response. Under: the excess bytes would be read as the next response.
    return {
      result: 'rejected',
      error: `size prefix ${size} does not match the ${frame.length - 4} bytes that follow (the connection would ${size > frame.length - 4 ? 'wait for more data' : 'read the excess as the next response'})`,
      offset: 0,
      path: 'Frame.size'
    };
  }
  // The correlation id (the connection matches it to the request in flight; a
  // testee has none, so any value is taken), then the header's tag buffer,
  // which the connection skips as one byte without reading it.
  let start = 8;
  if (entry.responseHeaderTaggedFields) start += 1;
  if (start > frame.length) {
    return { result: 'rejected', error: 'frame ends inside the response header', offset: frame.length, path: 'ResponseHeader' };
  }
  const reader = Reader.from(frame.subarray(start));
  try {
    entry.parser(0, entry.apiKey, entry.apiVersion, reader);
  } catch (err) {
    if (err instanceof ResponseError) {
      return { result: 'ok' };
    }
    const name = err && err.constructor ? err.constructor.name : 'Error';
    const where = thrownAt(err);
    return {
      result: isCrash(err) ? 'crashed' : 'rejected',
      error: `${entry.module}.parseResponse threw ${name}: ${err && err.message}${where ? ` (at ${where})` : ''}`,
      // Where the library's top-level reader stood when it threw.
      offset: start + reader.position
    };
  }
  return { result: 'ok' };
}

function answer(req) {
  const seq = req.seq;
  if (req.op !== 'validate') {
    return { seq, result: 'unsupported', reason: `operation ${req.op}: the library decodes responses only into its own objects and encodes only requests from function arguments` };
  }
  if (req.direction !== 'response') {
    return { seq, result: 'unsupported', reason: 'the library has no request decoder (it is a client)' };
  }
  const entry = table.get(`${req.api_key}/${req.version}`);
  if (!entry) {
    return { seq, result: 'unsupported', reason: `the library has no module for API ${req.api_key} (${req.api_name}) v${req.version}` };
  }
  if (typeof req.frame !== 'string' || !/^(?:[0-9a-f]{2})*$/i.test(req.frame)) {
    return { seq, result: 'rejected', error: 'request has no valid hex frame' };
  }
  return { seq, ...validateResponse(entry, Buffer.from(req.frame, 'hex')) };
}

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    process.stderr.write(`testee: not JSON: ${err.message}\n`);
    return;
  }
  if (req.type === 'hello') {
    send({ type: 'hello', protocol: 1, name: LIB, version: libVersion, operations: ['validate'] });
    return;
  }
  let out;
  try {
    out = answer(req);
  } catch (err) {
    // A fault of this testee, not a verdict on the library: an unknown result
    // makes the runner fail the operation.
    process.stderr.write(`testee: internal error on seq ${req.seq}: ${err && err.stack}\n`);
    out = { seq: req.seq, result: 'testee-error', error: String(err && err.message) };
  }
  send(out);
});
