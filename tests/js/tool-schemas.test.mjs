// Every field of every tool schema names its JSON type (issue 44): providers that require a type
// on each property (Gemini's function declarations, OpenAI's stricter validators) accept the tools
// as memcore defines them, for every configuration that changes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';

const typed = (schema) => typeof schema.type === 'string'
  || (Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && schema.anyOf.every((branch) => typeof branch.type === 'string'));

test('every property of every tool definition has a JSON type (OpenAI, Anthropic and MCP shapes)', () => {
  for (const config of [undefined, { history: { enabled: true } }, { guardrails: { allowedCategories: ['fact', 'note'] } }, { search: { mode: 'hybrid' } }]) {
    const definitions = m.toolDefinitions(config);
    const schemas = [
      ...definitions.openai.map((d) => [d.function.name, d.function.parameters]),
      ...definitions.anthropic.map((d) => [d.name, d.input_schema]),
      ...definitions.mcp.map((d) => [d.name, d.inputSchema]),
    ];
    assert.ok(schemas.length >= 12);
    for (const [name, schema] of schemas) {
      assert.equal(schema.type, 'object', name);
      for (const [field, property] of Object.entries(schema.properties)) assert.ok(typed(property), `${name}.${field}: ${JSON.stringify(property)}`);
    }
    // A remembered value is any JSON value but null: text, number, boolean, list or object.
    const value = definitions.openai.find((d) => d.function.name === 'rememberFact').function.parameters.properties.value;
    assert.deepEqual(value.anyOf.map((b) => b.type), ['string', 'number', 'boolean', 'array', 'object']);
  }
});
