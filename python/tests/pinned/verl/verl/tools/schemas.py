"""Pinned interface stub of verl's tool schema models (python/tests/pinned/README.md).

Upstream: https://github.com/volcengine/verl, file verl/tools/schemas.py, at commit
76f000fc433e394d936808fef81d5e0d9d1e4c39. Licence of the upstream file: Apache-2.0.
Only the models a tool's schema is made of: their field declarations as upstream (pydantic
models, as verl validates the tool config file's ``tool_schema`` into them).
"""

from pydantic import BaseModel


class OpenAIFunctionPropertySchema(BaseModel):
    """One argument of a function."""

    type: str
    description: str | None = None
    enum: list[str] | None = None


class OpenAIFunctionParametersSchema(BaseModel):
    """A function's arguments."""

    type: str
    properties: dict[str, OpenAIFunctionPropertySchema]
    required: list[str]


class OpenAIFunctionSchema(BaseModel):
    """A function the model may call."""

    name: str
    description: str
    parameters: OpenAIFunctionParametersSchema
    strict: bool = False


class OpenAIFunctionToolSchema(BaseModel):
    """A tool entry: ``{"type": "function", "function": {...}}``."""

    type: str
    function: OpenAIFunctionSchema
