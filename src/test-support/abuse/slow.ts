import { post, HOST, CONTACTS, chunk, type Probe } from "./probe.js";

// Requests that stop halfway: run with short timeouts (the suite's server).

export const slow: Probe[] = [
  {
    name: "headers that never end",
    send: () => `GET ${CONTACTS} HTTP/1.1\r\n${HOST}\r\nX-Slow: 1\r\n`,
    status: 400,
  },
  { name: "a request line that never ends", send: () => `GET ${CONTACTS}`, status: 400 },
  { name: "a blank line, then nothing", send: () => "\r\n", status: 400 },
  {
    name: "a body shorter than its Content-Length",
    send: post(["Content-Type: application/json", "Content-Length: 100"], '{"type":'),
    status: 400,
  },
  {
    name: "a chunked body that stops",
    send: post(["Content-Type: application/json", "Transfer-Encoding: chunked"], chunk('{"type":')),
    status: 400,
  },
];
