"""`netpress.agents.a2a` against a fake A2A 0.3 agent on loopback: a `http.server` serving an
agent card and JSON-RPC `message/send` / `tasks/get`, whose replies are the K8s scripted
baseline's replies to the transcript it is sent, so an episode played through it must score as
the baseline does."""

from __future__ import annotations

import json
import pickle
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import netpress
from conftest import messages_of

TOKEN = "a2a-token-51c9"


class FakePurple(BaseHTTPRequestHandler):
    """The card at the A2A 0.3 path, JSON-RPC at `/rpc`. With `as_task`, `message/send` answers a
    `working` task that `tasks/get` then finishes with an artifact; otherwise a `Message`."""

    requests: list[dict] = []
    as_task = False
    token: str | None = None
    tasks: dict[str, str] = {}
    baseline = staticmethod(netpress.agents.baseline("k8s"))

    def do_GET(self) -> None:
        if self.path != "/.well-known/agent-card.json":
            return self.answer(404, {"detail": "not found"})
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.answer(200, {"name": "fake-purple", "url": f"{base}/rpc", "version": "2.0.0",
                          "protocolVersion": "0.3.0", "capabilities": {}, "skills": [],
                          "defaultInputModes": ["text"], "defaultOutputModes": ["text"]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakePurple.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if FakePurple.token and self.headers.get("Authorization") != f"Bearer {FakePurple.token}":
            return self.answer(401, {"detail": "unauthorized"})
        rpc = {"jsonrpc": "2.0", "id": body["id"]}
        if body["method"] == "tasks/get":
            task_id = body["params"]["id"]
            artifact = {"artifactId": "a1", "parts": [{"kind": "text", "text": FakePurple.tasks.pop(task_id)}]}
            return self.answer(200, rpc | {"result": {"kind": "task", "id": task_id, "contextId": "c",
                                                      "status": {"state": "completed"}, "artifacts": [artifact]}})
        (part,) = body["params"]["message"]["parts"]
        reply = FakePurple.baseline(messages_of(part["text"]))
        if FakePurple.as_task:
            task_id = f"t{len(FakePurple.requests)}"
            FakePurple.tasks[task_id] = reply
            return self.answer(200, rpc | {"result": {"kind": "task", "id": task_id, "contextId": "c",
                                                      "status": {"state": "working"}}})
        message = {"kind": "message", "role": "agent", "messageId": "r", "parts": [{"kind": "text", "text": reply}]}
        self.answer(200, rpc | {"result": message})

    def answer(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:  # keep pytest's output clean
        pass


@pytest.fixture
def purple():
    FakePurple.requests, FakePurple.as_task, FakePurple.token, FakePurple.tasks = [], False, None, {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakePurple)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def played(records: list[dict]) -> list[tuple]:
    return [([t["reply"] for t in r["turns"]], r["finish"], r["score"]["correct"], r["score"]["safe"])
            for r in records]


IDS = ["k8s-v1-L1-s0-i0", "k8s-v1-L2-s1-i0"]


def test_an_a2a_agent_plays_as_the_agent_behind_it(purple):
    agent = netpress.agents.a2a(purple)
    assert played(netpress.evaluate(IDS, agent)) == played(netpress.evaluate(IDS))
    sends = [r for r in FakePurple.requests if r["body"]["method"] == "message/send"]
    first = sends[0]["body"]["params"]["message"]
    assert sends[0]["path"] == "/rpc" and sends[0]["auth"] is None
    assert first["role"] == "user" and first["parts"][0]["text"].startswith("=== Task ===\n")
    assert "contextId" not in first  # every turn stands alone, as in NetArena
    assert len({r["body"]["params"]["message"]["messageId"] for r in sends}) == len(sends)
    info = agent.info()
    assert (info["kind"], info["name"], info["settings"]["agent_version"]) == ("a2a", "fake-purple", "2.0.0")


def test_unfinished_tasks_are_polled(purple):
    FakePurple.as_task = True
    agent = netpress.agents.a2a(purple, poll_s=0.01)
    assert played(netpress.evaluate(IDS[:1], agent)) == played(netpress.evaluate(IDS[:1]))
    assert any(r["body"]["method"] == "tasks/get" for r in FakePurple.requests)


def test_the_token_stays_in_the_environment(purple, monkeypatch):
    FakePurple.token = TOKEN
    monkeypatch.setenv("NETPRESS_TEST_A2A", TOKEN)
    agent = netpress.agents.a2a(purple, token_env="NETPRESS_TEST_A2A")
    agent([{"role": "user", "content": netpress.make(IDS[0]).reset()[0]}])
    assert FakePurple.requests[-1]["auth"] == f"Bearer {TOKEN}"
    shipped = pickle.dumps(agent)
    assert TOKEN.encode() not in shipped
    monkeypatch.setenv("NETPRESS_TEST_A2A", "other")  # another process's environment
    with pytest.raises(netpress.agents.EndpointError) as refused:
        pickle.loads(shipped)([{"role": "user", "content": "hello"}])
    assert "401" in str(refused.value) and "other" not in str(refused.value)


def test_no_agent_card_stops_the_episode(purple):
    (record,) = netpress.evaluate(IDS[:1], netpress.agents.a2a(purple + "/nowhere/card.json"))
    assert record["finish"] == "stopped" and len(record["turns"]) == 1
    assert "agent card" in record["turns"][0]["error"]
    assert not any(r["body"]["method"] == "message/send" for r in FakePurple.requests)
