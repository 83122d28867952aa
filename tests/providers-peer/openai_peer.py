"""The official `openai` Python client parsing an answer, for comparison with agents-kt's parser.

Usage: openai_peer.py BASE_URL REQUEST_JSON_FILE

Sends the request body (exactly as agents-kt sent it: chat or stream) with the SDK to BASE_URL
and prints, as one JSON object, what the SDK understood: the text, the tool calls (id, name,
arguments) and the token usage. A streamed answer is assembled by the SDK's own
`ChatCompletionStreamState`, not by code written here.
"""

import json
import sys

import openai
from openai.lib.streaming.chat import ChatCompletionStreamState

# The request fields agents-kt sends; each is a named parameter of the SDK's `create`.
FIELDS = [
    "model",
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "max_tokens",
    "stream",
    "stream_options",
]


def main() -> None:
    base_url, request_file = sys.argv[1], sys.argv[2]
    with open(request_file, encoding="utf-8") as handle:
        body = json.load(handle)
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        sys.exit(f"fields the peer does not know how to send: {unknown}")
    client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0)
    answer = client.chat.completions.create(**body)
    if body.get("stream"):
        state = ChatCompletionStreamState()
        for chunk in answer:
            state.handle_chunk(chunk)
        answer = state.get_final_completion()
    message = answer.choices[0].message
    usage = answer.usage
    print(
        json.dumps(
            {
                "content": message.content or "",
                "tool_calls": [
                    {
                        "id": call.id,
                        "name": call.function.name,
                        "arguments": call.function.arguments,
                    }
                    for call in message.tool_calls or []
                ],
                "usage": None
                if usage is None
                else {
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                },
            }
        )
    )


if __name__ == "__main__":
    main()
