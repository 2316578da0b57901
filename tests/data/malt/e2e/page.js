// A reference page-side client of the MALT sandbox worker: one request at a time, a watchdog
// that terminates a worker silent for the time limit + 3 s (`TimeoutError: sandbox terminated`)
// or one that crashed (`sandbox crashed (memory)`), and respawns it; a worker whose linear
// memory passed 1 GiB is respawned after its answer. The page keeps a ticker running so a test
// can prove it stays responsive while the worker computes.
'use strict';

const GRACE_MS = 3000;
const MAX_MEMORY = 1024 * 1024 * 1024;

class SandboxClient {
  constructor() {
    this.respawns = 0;
    this.spawn();
  }

  spawn() {
    this.worker = new Worker('loader.js', { name: 'malt' });
    this.pending = null;
    this.ready = new Promise((resolve) => {
      this.worker.onmessage = (event) => {
        const msg = JSON.parse(event.data);
        if (msg.op === 'ready') { resolve(msg); return; }
        this.settle(msg);
      };
    });
    this.worker.onerror = () => this.restart({ op: 'error', message: 'sandbox crashed (memory)' });
  }

  restart(reply) {
    this.worker.terminate();
    this.respawns += 1;
    const pending = this.pending;
    this.spawn();
    if (pending) { clearTimeout(pending.timer); pending.resolve(reply); }
  }

  settle(msg) {
    const pending = this.pending;
    if (!pending || !pending.until.includes(msg.op)) return;
    clearTimeout(pending.timer);
    this.pending = null;
    pending.resolve(msg);
    if ((msg.memory_bytes || 0) > MAX_MEMORY) this.restart(null);
  }

  // Sends one request and resolves with the first response whose op is in `until`.
  async request(msg, until, limitMs) {
    await this.ready;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => this.restart({ op: 'error', message: 'TimeoutError: sandbox terminated' }),
        limitMs + GRACE_MS,
      );
      this.pending = { resolve, until, timer };
      this.worker.postMessage(JSON.stringify(msg));
    });
  }

  // One-shot check of an answer; `watchdogMs` is the page's time limit.
  check(id, answer, limits, watchdogMs = 2000) {
    return this.request({ op: 'check', id, answer, limits: limits || {} }, ['checked', 'error'], watchdogMs);
  }
}

let ticks = 0;
setInterval(() => {
  ticks += 1;
  document.getElementById('ticks').textContent = String(ticks);
}, 50);

const client = new SandboxClient();
window.malt = {
  client,
  ticks: () => ticks,
  check: (id, answer, limits, watchdogMs) => client.check(id, answer, limits, watchdogMs),
};
client.ready.then(() => { document.getElementById('status').textContent = 'ready'; });
