// mcpblaunch.mjs prints the command a host such as Claude Desktop runs for
// an unpacked MCP Bundle, as the official library works it out
// (getMcpConfigForManifest: the platform override, then ${__dirname},
// ${HOME}, ${/} and ${user_config.KEY} substituted). The Go test
// TestBundles runs it; it is not meant for people.
//
//   node mcpblaunch.mjs MODULES DIR USER_CONFIG_JSON
//
// MODULES is the directory holding node_modules/@anthropic-ai/mcpb; DIR the
// unpacked bundle; USER_CONFIG_JSON the values the user entered.
// Output: {"command", "args", "env"} as JSON, or {} when the library would
// not start the server (a required setting is missing).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, dir, userConfig] = process.argv.slice(2);
const lib = path.join(modules, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'index.js');
const { getMcpConfigForManifest } = await import(pathToFileURL(lib).href);
const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: dir,
  systemDirs: { HOME: homedir(), DESKTOP: path.join(homedir(), 'Desktop'), DOCUMENTS: path.join(homedir(), 'Documents'), DOWNLOADS: path.join(homedir(), 'Downloads') },
  userConfig: JSON.parse(userConfig),
  pathSeparator: path.sep,
});
console.log(JSON.stringify(config ?? {}));
