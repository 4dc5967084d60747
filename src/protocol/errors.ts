import { RequestError } from "@agentclientprotocol/sdk";
import { DomainError } from "../session/errors.ts";
import { assertNever } from "../util/assert-never.ts";

/** The one place domain failures become JSON-RPC errors. */
export function toRequestError(error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  switch (error.code) {
    case "SESSION_NOT_FOUND":
      return RequestError.sessionNotFound(String(error.data?.sessionId ?? ""));
    case "AUTH_REQUIRED":
      return new RequestError(-32000, error.message, error.data);
    case "CONFIG_INVALID":
    case "STORE_UNAVAILABLE":
      return new RequestError(-32603, error.message, error.data);
    case "INVALID_CURSOR":
    case "INVALID_VALUE":
      return new RequestError(-32602, error.message, error.data);
    default:
      return assertNever(error.code);
  }
}

/** Wraps a handler so domain errors reach the client as proper JSON-RPC errors. */
export function mapErrors<A extends unknown[], R>(fn: (...args: A) => Promise<R> | R): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (e) {
      throw toRequestError(e);
    }
  };
}
