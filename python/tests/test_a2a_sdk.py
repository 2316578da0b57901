"""`netpress serve --a2a-assessor` as a leaderboard scenario runs it, with the real `a2a-sdk`
(0.3 API) on both of its sides: the participant ("purple") agent is built on the SDK's server
(`AgentExecutor`, `DefaultRequestHandler`, `A2AStarletteApplication`, served by uvicorn) and
answers every turn with the K8s scripted baseline's reply to the transcript it is sent; the
assessment is requested, and its events read, by the SDK's streaming client, whose pydantic
models validate every event and the assessor's agent card. The queries must score as
the baseline's own records score the same tasks."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import threading

import httpx
import pytest
import uvicorn
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory, create_text_message_object
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, DataPart, Task, TaskStatusUpdateEvent
from a2a.utils import get_message_text, new_agent_text_message
import netpress
from conftest import messages_of

IDS = ["k8s-v1-L1-s0-i0", "k8s-v1-L2-s3-i0", "k8s-v1-L1-s5-i0"]


class BaselinePurple(AgentExecutor):
    """Answers each message (one turn's whole transcript, as the assessor sends it) with the K8s
    baseline's reply, as one agent message."""

    def __init__(self) -> None:
        self.baseline = netpress.agents.baseline("k8s")
        self.turns = 0

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.turns += 1
        reply = self.baseline(messages_of(context.get_user_input()))
        await event_queue.enqueue_event(new_agent_text_message(reply, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the baseline's turns are instant")


@pytest.fixture(scope="module")
def purple():
    """The SDK-built participant on a loopback port of its own, and its executor."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    card = AgentCard(
        name="k8s-baseline-purple", description="the K8s scripted baseline behind the A2A SDK", url=url,
        version="1.0.0", capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text"], default_output_modes=["text"],
        skills=[AgentSkill(id="k8s", name="k8s operator", description="fixes network policies", tags=["k8s"])],
    )
    executor = BaselinePurple()
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore())
    app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.02)
        assert thread.is_alive(), "the purple agent's server did not start"
    yield url, executor
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def green(netpress_bin):
    """`netpress serve --a2a-assessor` on a free loopback port, and its URL."""
    proc = subprocess.Popen([str(netpress_bin), "serve", "--a2a-assessor", "--bind", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.match(r"listening on (http://\S+)", line)
    assert found, f"serve printed {line!r}"
    yield found.group(1) + "/"
    proc.terminate()
    proc.wait(10)


async def assess(green_url: str, eval_request: str) -> list:
    """Sends the EvalRequest with the SDK's streaming client; every event it yields."""
    async with httpx.AsyncClient(timeout=120) as http:
        card = await A2ACardResolver(http, green_url).get_agent_card()
        assert card.capabilities.streaming, "the assessor's card offers streaming"
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        return [event async for event in client.send_message(create_text_message_object(content=eval_request))]


def test_an_sdk_client_assesses_an_sdk_purple_agent(purple, green):
    purple_url, executor = purple
    request = {"participants": {"k8s_operator": purple_url},
               "config": {"task_ids": IDS, "prompt_type": "zeroshot_base", "max_iterations": 10}}
    events = asyncio.run(assess(green, json.dumps(request)))

    # Streaming: (task, update) pairs, ending with the completed task.
    task: Task = events[-1][0]
    assert task.status.state.value == "completed"
    updates = [u for _, u in events if isinstance(u, TaskStatusUpdateEvent)]
    said = [get_message_text(u.status.message) for u in updates if u.status.message]
    assert said[0].startswith("Assessing k8s_operator on 3 k8s queries"), said
    assert [s for s in said if s.startswith("Query ")] == [f"Query {n} processed" for n in (1, 2, 3)]
    assert updates[-1].final

    # One data artifact per query, then the averages; each query as the baseline plays it.
    names = [a.name for a in task.artifacts]
    assert names == ["Query 1", "Query 2", "Query 3", "Result"]
    data = [a.parts[0].root for a in task.artifacts]
    assert all(isinstance(d, DataPart) for d in data)
    baseline = netpress.evaluate(IDS, "baseline", max_turns=10)
    for query, record in zip(data, baseline):
        assert query.data["netpress_id"] == record["id"]
        assert query.data["success"] == record["score"]["correct"]
        assert query.data["iterations"] == len(record["turns"])
    result = data[-1].data
    assert result["avg_correctness"] == sum(r["score"]["correct"] for r in baseline) / len(baseline)
    assert result["participants"] == {"k8s_operator": purple_url}
    # Every turn of every episode was one call to the participant.
    assert executor.turns == sum(len(r["turns"]) for r in baseline)
