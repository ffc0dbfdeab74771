// tsserver.mjs is an MCP server written with the official TypeScript SDK's
// Server, for TestToolsAndCallAgainstTypeScriptServer: mcpship tools and
// mcpship call must read what another implementation serves. It is not
// meant for people.
//
//   node tsserver.mjs MODULES    (the directory holding node_modules/@modelcontextprotocol/sdk)
//
// Tools: pic (an image, a resource link and structuredContent, with an
// enum, an array and an anyOf input and an outputSchema), pingme (pings the
// client before it answers), roots (asks the client for roots/list, which
// mcpship's client does not offer), fail (isError) and progress (reports
// progress to the call's progressToken, then answers).
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.argv[2], 'package.json'));
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const server = new Server({ name: 'ts-demo', version: '2.0.0' },
  { capabilities: { tools: {} }, instructions: 'A demo server written with the TypeScript SDK.' });

const object = { type: 'object', properties: {} };
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
  {
    name: 'pic', title: 'A picture', description: 'Returns a tiny PNG, a resource link and its size.',
    inputSchema: {
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['s', 'm'], default: 's', description: 'how big' },
        tags: { type: 'array', items: { type: 'string' } },
        n: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      },
      required: ['size'],
    },
    outputSchema: { type: 'object', properties: { size: { type: 'string' }, bytes: { type: 'integer' } } },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  { name: 'pingme', description: 'Pings the client before answering.', inputSchema: object },
  { name: 'roots', description: 'Asks the client for its roots.', inputSchema: object },
  { name: 'fail', description: 'Always fails.', inputSchema: object },
  { name: 'progress', description: 'Reports progress, then answers.', inputSchema: object },
]}));

server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  switch (req.params.name) {
    case 'pic':
      return {
        content: [
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///pic.png', name: 'pic.png' },
          { type: 'text', text: JSON.stringify({ size: req.params.arguments.size, bytes: 8 }) },
        ],
        structuredContent: { size: req.params.arguments.size, bytes: 8 },
      };
    case 'pingme':
      await server.ping();
      return { content: [{ type: 'text', text: 'pong received' }] };
    case 'roots':
      try {
        await server.listRoots();
        return { content: [{ type: 'text', text: 'the client listed roots' }] };
      } catch (e) {
        return { content: [{ type: 'text', text: `no roots: ${e.message}` }] };
      }
    case 'fail':
      return { content: [{ type: 'text', text: 'it broke' }], isError: true };
    case 'progress': {
      const token = req.params._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2, message: 'half way' } });
      }
      return { content: [{ type: 'text', text: `done (progressToken ${JSON.stringify(token)})` }] };
    }
  }
  throw new Error(`unknown tool ${req.params.name}`);
});

await server.connect(new StdioServerTransport());
