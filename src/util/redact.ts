/** Masks secrets before anything is logged or shown: known key shapes and the values of secret env vars. */

const KEY_SHAPES = [
  /\b(sk-(?:ant-|or-|proj-)?[A-Za-z0-9_-]{12,})/g,
  /\b(xai-[A-Za-z0-9]{12,})/g,
  /\b(AIza[0-9A-Za-z_-]{20,})/g,
  /\b(gh[pousr]_[A-Za-z0-9]{20,})/g,
  /\b(hf_[A-Za-z0-9]{20,})/g,
  /(Bearer\s+)([A-Za-z0-9._~+/=-]{12,})/gi,
];

const SECRET_ENV = /(_API_KEY|_TOKEN|_SECRET|PASSWORD)$/;

export function secretValues(env: Record<string, string | undefined> = process.env): string[] {
  return Object.entries(env)
    .filter(([k, v]) => SECRET_ENV.test(k) && typeof v === "string" && v.length >= 8)
    .map(([, v]) => v as string);
}

export function mask(secret: string): string {
  return secret.length <= 8 ? "***" : `${secret.slice(0, 4)}…${secret.slice(-2)}`;
}

export function redact(text: string, extraSecrets: string[] = secretValues()): string {
  let out = text;
  for (const s of extraSecrets) if (s && out.includes(s)) out = out.split(s).join("***");
  for (const re of KEY_SHAPES) {
    // With one group, replace() passes the match offset (a number) as the third argument.
    out = out.replace(re, (_m, a: string, b: unknown) => (typeof b === "string" ? `${a}***` : "***"));
  }
  return out;
}
