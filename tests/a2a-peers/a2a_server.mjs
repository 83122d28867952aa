// An A2A server built with the official JavaScript SDK (npm `@a2a-js/sdk` 1.x, on Express), which
// the Rust tests call with our `A2aAgent`. Usage:
//
//     node a2a_server.mjs PORT
//
// Prints `ready` once it listens. What the agent does, by the message it gets:
// - a data part {"city": C}: completes with a data artifact {"city": C, "forecast": "rain", "celsius": 9};
// - "fail": fails, saying "the javascript agent cannot do that";
// - "ask": asks "Which order?" (input-required); the reply completes with "order <reply> found";
// - any other text T: completes with the text artifact "javascript echo: T".
import { randomUUID } from "node:crypto";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const port = Number(process.argv[2]);
const base = `http://127.0.0.1:${port}`;

const card = {
  name: "javascript-weather",
  description: "A weather agent written with the JavaScript A2A SDK.",
  version: "1.0.0",
  supportedInterfaces: [{ url: base, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain", "application/json"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [{ id: "weather", name: "weather", description: "Forecasts", tags: ["weather"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

const text = (value) => ({ content: { $case: "text", value } });
const data = (value) => ({ content: { $case: "data", value } });

function agentMessage(taskId, contextId, parts) {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function status(taskId, contextId, state, message) {
  return AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined });
}

function artifact(taskId, contextId, name, parts) {
  return AgentEvent.artifactUpdate({
    taskId, contextId,
    artifact: { artifactId: randomUUID(), name, description: "", parts, metadata: undefined, extensions: [] },
    append: false, lastChunk: true, metadata: undefined,
  });
}

const executor = {
  async execute(context, bus) {
    const { taskId, contextId } = context;
    const message = context.userMessage;
    const task = context.task ?? {
      id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
      artifacts: [], history: [message], metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    const said = message.parts.filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("\n");
    const given = message.parts.find((p) => p.content?.$case === "data")?.content.value;
    if (context.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(artifact(taskId, contextId, "answer", [text(`order ${said} found`)]));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined));
    } else if (given && given.city) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, undefined));
      bus.publish(artifact(taskId, contextId, "forecast", [data({ city: given.city, forecast: "rain", celsius: 9 })]));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined));
    } else if (said === "fail") {
      const why = agentMessage(taskId, contextId, [text("the javascript agent cannot do that")]);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, why));
    } else if (said === "ask") {
      const question = agentMessage(taskId, contextId, [text("Which order?")]);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, question));
    } else {
      bus.publish(artifact(taskId, contextId, "echo", [text(`javascript echo: ${said}`)]));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined));
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(status(taskId, "", TaskState.TASK_STATE_CANCELED, undefined));
    bus.finished();
  },
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: async () => card }));
app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
app.listen(port, "127.0.0.1", () => console.log("ready"));
