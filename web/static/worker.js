// worker.js: the static build's server. It runs zerokit compiled to
// WebAssembly (zerokit.wasm, with wasm_exec.js from Go's distribution) in
// a Web Worker and answers the page's API requests with it, so a search
// never blocks the page. Unused when zerokit web serves the page.
"use strict";
importScripts("wasm_exec.js");

const ready = (async () => {
  const go = new Go();
  const bytes = await (await fetch("zerokit.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  go.run(instance); // sets self.zerokitRequest, then waits for requests
  if (typeof self.zerokitRequest !== "function") throw new Error("zerokit.wasm did not start");
})();

self.onmessage = async (e) => {
  const { id, method, path, body } = e.data;
  try {
    await ready;
    const res = await self.zerokitRequest(method, path, body ? new Uint8Array(body) : undefined);
    self.postMessage({ id, status: res.status, body: res.body });
  } catch (err) {
    self.postMessage({ id, status: 500, body: JSON.stringify({ error: "zerokit.wasm: " + err.message }) });
  }
};
