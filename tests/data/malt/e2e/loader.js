// Worker entry: loads the wasm-bindgen (no-modules) output of `netpress-worker`, whose main()
// installs the message handler and posts {"op":"ready"}. Trunk's worker target generates the
// same two lines.
importScripts('netpress-worker.js');
wasm_bindgen('netpress-worker_bg.wasm');
