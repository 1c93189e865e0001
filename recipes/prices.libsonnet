// prices.libsonnet: what models cost, in US dollars per million tokens, for
// the estimate rein ask prints after an answer. Prices as the providers
// published them in 2025; they change, so a recipe overrides or adds:
//
//   provider+: { prices+: { 'my-model': { input: 0.5, output: 1.5 } } }
//
// A model matches its own name, else the longest name here it starts with
// (gpt-4.1-2025-04-14 is gpt-4.1). A model not here gets no estimate.
{
  'gpt-4.1': { input: 2.0, output: 8.0 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10.0 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'o3': { input: 2.0, output: 8.0 },
  'claude-opus-4': { input: 15.0, output: 75.0 },
  'claude-sonnet-4': { input: 3.0, output: 15.0 },
  'claude-haiku-4-5': { input: 1.0, output: 5.0 },
  'claude-3-5-haiku': { input: 0.8, output: 4.0 },
}
