#!/usr/bin/env node
// kwire conformance testee (protocol 1) for kafkajs.
//
// It answers only `validate`, and only for response frames: kafkajs is a
// client, so it decodes responses (src/protocol/requests/<api>/v<N>/response.js,
// `decode`) and encodes requests from function arguments (request.js), never
// the other way round. See README.md.
//
// A response frame is read the way the library's connection reads one from the
// socket (src/network/connection.js, Connection#processData and #send): int32
// size, a Decoder over `size` bytes, int32 correlation id, then the rest
// (`readAll()`) to the API version's `response.decode`. kafkajs has no flexible
// versions, so its response header is always v0 (no tag section). A frame is
// accepted when `decode` resolves, or when it throws KafkaJSProtocolError: a
// decoded Kafka error code (UNSUPPORTED_VERSION, from failIfVersionNotSupported
// in 20 decoders), which the library acts on as a server answer. `parse`
// (error codes turned into exceptions) is not called: it is not part of reading
// the wire format. Other exceptions are a rejection when they are the library's
// own decode errors and `crashed` when they are a JavaScript fault (isCrash).

'use strict'

const path = require('path')
const readline = require('readline')

const LIB = 'kafkajs'

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`usage: node testee.js

kwire conformance testee (testee protocol 1, conformance/README.md) for
${LIB}. It reads protocol requests on stdin and answers on stdout, one JSON
object per line. Operation: validate, for response frames of the API versions
the library implements; everything else is "unsupported".

Install once:  (cd ${__dirname} && npm ci)
Run:           kwire conformance --testee 'node ${path.join(__dirname, 'testee.js')}' conformance/vectors
`)
  process.exit(0)
}

let requests, apiKeys, KafkaJSProtocolError, KafkaJSError, libVersion
try {
  ;({ requests } = require('kafkajs/src/protocol/requests'))
  apiKeys = require('kafkajs/src/protocol/requests/apiKeys')
  ;({ KafkaJSProtocolError, KafkaJSError } = require('kafkajs/src/errors'))
  libVersion = require('kafkajs/package.json').version
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND') {
    process.stderr.write(`testee: ${LIB} is not installed; run "npm ci" in ${__dirname} first\n(${err.message})\n`)
    process.exit(2)
  }
  throw err
}

// The library's own table: src/protocol/requests/index.js maps each API name
// to { versions, protocol }, and apiKeys.js names the keys. protocol({ version })
// returns the function that builds { request, response } for that version; the
// request's encode() is lazy, so calling it with no arguments only selects the
// version's response module.
const table = new Map() // "key/version" -> { name, decode }
for (const [name, def] of Object.entries(requests)) {
  const apiKey = apiKeys[name]
  for (const v of def.versions) {
    const version = Number(v)
    const { response } = def.protocol({ version })({})
    table.set(`${apiKey}/${version}`, { name: `${name} v${version}`, decode: response.decode })
  }
}
if (table.size === 0) {
  process.stderr.write(`testee: found no API versions in ${LIB} ${libVersion}\n`)
  process.exit(2)
}

// Which exceptions are kafkajs's deliberate decode errors (a rejection) and
// which are a crash: an exception it does not mean to throw (protocol v1
// `crashed`, always a failure). Read off the library's source (README.md):
// * its own errors, the KafkaJSError family (src/errors.js), e.g.
//   KafkaJSInvalidVarIntError (decoder.js:259-261), KafkaJSInvalidLongError;
// * Node's Buffer bounds errors (RangeError with code ERR_OUT_OF_RANGE or
//   ERR_BUFFER_OUT_OF_BOUNDS). kafkajs's Decoder has no bounds checks of its
//   own: readInt8/readInt16/readInt32/readDouble (decoder.js:31-84) call
//   Buffer#readInt*BE at the offset and rely on its RangeError to stop at the
//   end of the frame (the connection hands over only whole frames,
//   connection.js:505). That is the library's truncation check: a rejection.
// * any other Error that is not a JavaScript fault (plain `new Error(...)`,
//   zlib's data errors from the gzip codec) is a deliberate refusal too.
// A crash is a JavaScript fault: TypeError, ReferenceError, SyntaxError,
// EvalError, URIError, and a RangeError that is not a Buffer bounds error:
// "Invalid array length" (`new Array(n)` with a count below -1, decoder.js:181,
// 196, 213, 228), BigInt(NaN) (readInt64 past the end, decoder.js:77, which
// does no check), stack overflow, "Invalid string length".
const BOUNDS_CODES = new Set(['ERR_OUT_OF_RANGE', 'ERR_BUFFER_OUT_OF_BOUNDS'])
const FAULTS = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError]

function isCrash(err) {
  if (!(err instanceof Error)) return false
  if (err instanceof KafkaJSError || /^KafkaJS/.test(err.name)) return false
  if (err instanceof RangeError && BOUNDS_CODES.has(err.code)) return false
  return FAULTS.some(cls => err instanceof cls)
}

// Where the exception was thrown: the first stack frame inside node_modules
// (kafkajs), as "kafkajs/src/...js:line".
function thrownAt(err) {
  const stack = err && typeof err.stack === 'string' ? err.stack.split('\n') : []
  for (const line of stack) {
    const m = /node_modules\/(.+?):(\d+):\d+\)?\s*$/.exec(line)
    if (m) return `${m[1]}:${m[2]}`
  }
  return null
}

async function validateResponse(entry, frame) {
  // Connection#processData: the size, then waits until `size` bytes are there.
  if (frame.length < 4) {
    return { result: 'rejected', error: 'frame shorter than its size prefix: the connection waits for more data', offset: 0, path: 'Frame.size' }
  }
  const size = frame.readInt32BE(0)
  if (size !== frame.length - 4) {
    return {
      result: 'rejected',
      error: `size prefix ${size} does not match the ${frame.length - 4} bytes that follow (the connection would ${size > frame.length - 4 ? 'wait for more data' : 'read the excess as the next response'})`,
      offset: 0,
      path: 'Frame.size'
    }
  }
  if (frame.length < 8) {
    // response.readInt32() on fewer than 4 bytes throws a RangeError in the
    // connection's data handler.
    return { result: 'rejected', error: 'frame ends inside the correlation id', offset: 4, path: 'ResponseHeader.CorrelationId' }
  }
  // The correlation id is matched to the request in flight; a testee has none,
  // so any value is taken. The payload is the rest of the frame.
  const payload = frame.subarray(8)
  try {
    await entry.decode(payload)
  } catch (err) {
    if (err instanceof KafkaJSProtocolError) {
      return { result: 'ok' }
    }
    const name = err && err.constructor ? err.constructor.name : 'Error'
    const where = thrownAt(err)
    return {
      result: isCrash(err) ? 'crashed' : 'rejected',
      error: `${entry.name} response.decode threw ${name}: ${err && err.message}${where ? ` (at ${where})` : ''}`
    }
  }
  return { result: 'ok' }
}

async function answer(req) {
  const seq = req.seq
  if (req.op !== 'validate') {
    return { seq, result: 'unsupported', reason: `operation ${req.op}: the library decodes responses only into its own objects and encodes only requests from function arguments` }
  }
  if (req.direction !== 'response') {
    return { seq, result: 'unsupported', reason: 'the library has no request decoder (it is a client)' }
  }
  const entry = table.get(`${req.api_key}/${req.version}`)
  if (!entry) {
    return { seq, result: 'unsupported', reason: `the library has no decoder for API ${req.api_key} (${req.api_name}) v${req.version}` }
  }
  if (typeof req.frame !== 'string' || !/^(?:[0-9a-f]{2})*$/i.test(req.frame)) {
    return { seq, result: 'rejected', error: 'request has no valid hex frame' }
  }
  return { seq, ...(await validateResponse(entry, Buffer.from(req.frame, 'hex'))) }
}

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n')
}

// decode is async: answer strictly in order, one request at a time.
let chain = Promise.resolve()
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
rl.on('line', line => {
  chain = chain.then(async () => {
    if (line.trim() === '') return
    let req
    try {
      req = JSON.parse(line)
    } catch (err) {
      process.stderr.write(`testee: not JSON: ${err.message}\n`)
      return
    }
    if (req.type === 'hello') {
      send({ type: 'hello', protocol: 1, name: LIB, version: libVersion, operations: ['validate'] })
      return
    }
    let out
    try {
      out = await answer(req)
    } catch (err) {
      // A fault of this testee, not a verdict on the library: an unknown
      // result makes the runner fail the operation.
      process.stderr.write(`testee: internal error on seq ${req.seq}: ${err && err.stack}\n`)
      out = { seq: req.seq, result: 'testee-error', error: String(err && err.message) }
    }
    send(out)
  })
})
