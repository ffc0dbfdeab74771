// tsclient.mjs drives an MCP server over stdio with the official TypeScript
// SDK's Client and prints what it saw as one JSON object. The Go test
// TestTypeScriptSDK runs it; it is not meant for people.
//
//   node tsclient.mjs PLAN_JSON
//
// PLAN_JSON: {"modules": dir holding node_modules/@modelcontextprotocol/sdk,
//             "command": path, "args": [...],
//             "protocolVersion": revision to ask for in initialize ("" for the SDK's own),
//             "calls": [{"tool": name, "args": JSON value or null}, ...]}
// Output:    {"requested", "negotiated", "serverInfo", "capabilities",
//             "tools": [names], "calls": [{"result": ...} or {"error": {"code", "message"}}]}
// Exit 0 when the session ran (whatever the calls returned), 1 otherwise.
import { createRequire } from 'node:module';
import path from 'node:path';

const plan = JSON.parse(process.argv[2]);
const require = createRequire(path.join(plan.modules, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

// The SDK always asks for its latest revision; to ask for another, rewrite
// the outgoing initialize. The SDK still checks the answer itself.
class PinnedTransport extends StdioClientTransport {
  requested = '';
  negotiated = '';
  async send(message, options) {
    if (message.method === 'initialize') {
      if (plan.protocolVersion) {
        message = { ...message, params: { ...message.params, protocolVersion: plan.protocolVersion } };
      }
      this.requested = message.params.protocolVersion;
    }
    return super.send(message, options);
  }
  // The Client hands the revision the server chose to a transport that
  // has this method.
  setProtocolVersion(version) {
    this.negotiated = version;
  }
}

const transport = new PinnedTransport({ command: plan.command, args: plan.args, stderr: 'inherit' });
const client = new Client({ name: 'mcpship-realclients-ts', version: '0' });
const out = { calls: [] };
try {
  await client.connect(transport);
  out.requested = transport.requested;
  out.negotiated = transport.negotiated;
  out.serverInfo = client.getServerVersion();
  out.capabilities = client.getServerCapabilities();
  const list = await client.listTools();
  out.tools = list.tools.map((t) => t.name);
  for (const c of plan.calls) {
    try {
      const params = { name: c.tool };
      if (c.args !== null && c.args !== undefined) params.arguments = c.args;
      out.calls.push({ result: await client.callTool(params) });
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
