/**
 * A schema compiler that compiles each schema once per process, keyed by the schema's text: every
 * gateway a process builds (the test suite builds hundreds) shares what the first one compiled, where
 * compiling every route again was most of a start.
 */
export function compiledOnce<T>(compile: (schema: object) => T): (schema: object) => T {
  const compiled = new Map<string, T>();
  return (schema) => {
    const text = JSON.stringify(schema);
    let result = compiled.get(text);
    if (result === undefined) {
      result = compile(schema);
      compiled.set(text, result);
    }
    return result;
  };
}

/**
 * What `compile` makes, made when first asked for rather than when a route is added: a gateway registers
 * a few thousand routes (every chain's) of which an idle one serves a handful, and compiling every schema
 * at start was most of its time to ready and megabytes of generated code.
 */
export function compiledOnFirstUse<T>(compile: () => T): () => T {
  let compiled: T | undefined;
  return () => {
    compiled ??= compile();
    return compiled;
  };
}
