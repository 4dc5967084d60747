/** hermes-behaviour §20.2: when automatic compression is due, in prompt tokens. */
export function compressionThreshold(contextLength: number, threshold = 0.5, maxTokens = 0): number {
  const floor = 64_000;
  const t = Math.max(Math.floor((contextLength - maxTokens) * threshold), floor);
  // A floor above the window would never trigger: fall back to most of the window.
  if (t >= contextLength) return Math.min(Math.floor(contextLength * 0.85), contextLength - 1);
  return t;
}
