// Spawns `rein mcp` with the official TypeScript SDK, lists the tools, runs
// an allowed command and a forbidden one, and prints a JSON report.
// Usage: REIN_BIN=/path/to/rein REIN_WORKSPACE=/dir node client.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({
  command: process.env.REIN_BIN,
  args: ["--dir", process.env.REIN_WORKSPACE, "mcp"],
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "rein-test-client", version: "1.0.0" });
const report = {};
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  report.tools = tools.map((t) => t.name);
  report.runCommandSchema = tools.find((t) => t.name === "run_command")?.inputSchema;

  const ok = await client.callTool({ name: "run_command", arguments: { command: "echo hello from the typescript sdk", reason: "test" } });
  report.allowed = { isError: ok.isError ?? false, text: ok.content.map((c) => c.text).join("") };

  const denied = await client.callTool({ name: "run_command", arguments: { command: "rm -rf /", reason: "test" } });
  report.denied = { isError: denied.isError ?? false, text: denied.content.map((c) => c.text).join("") };
} catch (err) {
  report.error = String(err);
} finally {
  await client.close();
}
console.log(JSON.stringify(report));
process.exit(report.error ? 1 : 0);
