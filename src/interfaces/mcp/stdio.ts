import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from '../../engine/config.js';
import type { MemoryEngine } from '../../engine/engine.js';
import { stdioPrincipal } from '../shared/principal.js';
import { createMcpServer } from './server.js';

/**
 * `lmem mcp`: MCP on stdin/stdout until stdin closes. With tokens configured the process acts as
 * the one `server.mcp.token` (LIVINGMEMORY_MCP_TOKEN) names, as `/mcp` would for that token;
 * without, as the local unscoped caller.
 */
export async function serveMcpStdio(engine: MemoryEngine, config: Config, io = { stdin: process.stdin, stdout: process.stdout }): Promise<void> {
  const principal = stdioPrincipal(config);
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    io.stdin.once('end', () => void transport.close());
  });
  await createMcpServer(engine, principal, config.server.mcp.budget, config.limits).connect(transport);
  await closed;
}
