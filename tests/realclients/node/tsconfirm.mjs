// tsconfirm.mjs drives an MCP server with the official TypeScript SDK's
// Client, over stdio or Streamable HTTP, answering the server's
// elicitation/create requests with a planned answer, and prints what it saw
// as one JSON object. The Go test TestConfirmTypeScriptSDK runs it; it is
// not meant for people.
//
//   node tsconfirm.mjs PLAN_JSON
//
// PLAN_JSON: {"modules": dir holding node_modules/@modelcontextprotocol/sdk,
//             "command": path, "args": [...]  (stdio), or "url": endpoint (HTTP),
//             "answer": the ElicitResult to answer with, or null to declare
//                       no elicitation capability,
//             "calls": [{"tool": name, "args": JSON value}, ...]}
// Output:    {"negotiated", "asked": [params of each elicitation/create],
//             "calls": [{"result": ...} or {"error": {"code", "message"}}]}
// Exit 0 when the session ran (whatever the calls returned), 1 otherwise.
import { createRequire } from 'node:module';
import path from 'node:path';

const plan = JSON.parse(process.argv[2]);
const require = createRequire(path.join(plan.modules, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const out = { negotiated: '', asked: [], calls: [] };
const transport = plan.url
  ? new StreamableHTTPClientTransport(new URL(plan.url))
  : new StdioClientTransport({ command: plan.command, args: plan.args, stderr: 'inherit' });
// The Client hands the revision the server chose to a transport that has
// setProtocolVersion (the HTTP one needs it for its header).
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
  out.negotiated = version;
  setVersion?.(version);
};
const capabilities = plan.answer ? { elicitation: {} } : {};
const client = new Client({ name: 'mcpship-realclients-ts', version: '0' }, { capabilities });
if (plan.answer) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    out.asked.push(request.params);
    return plan.answer;
  });
}
try {
  await client.connect(transport);
  for (const c of plan.calls) {
    try {
      out.calls.push({ result: await client.callTool({ name: c.tool, arguments: c.args }) });
    } catch (e) {
      out.calls.push({ error: { code: e.code ?? null, message: String(e.message ?? e) } });
    }
  }
  await client.close();
} catch (e) {
  out.fatal = String(e && e.stack ? e.stack : e);
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + '\n');
