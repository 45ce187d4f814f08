/**
 * JSON request bodies without prototype keys. moleculer-web copies a body into the request's
 * params by assignment, so an own `"__proto__"` key would become their prototype and its fields
 * would read as the request's own (an order placed from them); a `constructor.prototype` pair is
 * the same trap for any deep merge. Such a body is refused whole (400), not quietly trimmed.
 */

/** How the refusal's message starts: the parse error reaches the envelope as a message only. */
export const PROTOTYPE_KEY_REFUSAL = "A JSON body must not contain the key";

/** A `JSON.parse` reviver (body-parser's `reviver` option) that throws on a prototype key at any depth. */
export function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === "__proto__") throw new SyntaxError(`${PROTOTYPE_KEY_REFUSAL} "__proto__"`);
  if (key === "constructor" && typeof value === "object" && value !== null && Object.hasOwn(value, "prototype"))
    throw new SyntaxError(`${PROTOTYPE_KEY_REFUSAL} "constructor.prototype"`);
  return value;
}
