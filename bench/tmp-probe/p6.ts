import { z } from "zod";
if (process.argv[2] === "jitless") z.config({ jitless: true });
const v = await import("../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js");
const msg = { sessionId: "abc", prompt: [{ type: "text", text: "go" }] };
const times: number[] = [];
for (let i = 0; i < 200; i++) { const t = performance.now(); v.zPromptRequest.parse(msg); times.push(performance.now() - t); }
const note = { sessionId: "abc", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x".repeat(5000) }, messageId: "m" } };
const t2: number[] = [];
for (let i = 0; i < 200; i++) { const t = performance.now(); v.zSessionNotification.parse(note); t2.push(performance.now() - t); }
const f = (xs: number[]) => `first ${xs[0]!.toFixed(3)} 2nd ${xs[1]!.toFixed(3)} 10th ${xs[9]!.toFixed(3)} 50th ${xs[49]!.toFixed(3)} last ${xs.at(-1)!.toFixed(3)}`;
console.log(process.argv[2] ?? "jit", "prompt:", f(times), "| notification:", f(t2));
