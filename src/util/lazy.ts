// A value built on first use. For module-level zod schemas: each one costs ~30–50 µs to build in a cold process,
// and most of them are not needed to open a session (startup is measured against a bare Bun program).

export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
