/** Failures with a stable code; protocol/errors.ts maps them to JSON-RPC errors. */
export type DomainErrorCode = "SESSION_NOT_FOUND" | "CONFIG_INVALID" | "STORE_UNAVAILABLE" | "AUTH_REQUIRED" | "INVALID_CURSOR" | "INVALID_VALUE";

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
