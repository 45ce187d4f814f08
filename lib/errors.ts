import { Errors } from "moleculer";
import type { FieldError } from "./fault";

export type { FieldError } from "./fault";

/** Domain errors travel between nodes as MoleculerClientError(message, status, CODE, data). */
export const DomainError = Errors.MoleculerClientError;

export function validationError(message: string, fields?: FieldError[]): Errors.MoleculerClientError {
  return new DomainError(message, 400, "VALIDATION_ERROR", fields ? { fields } : undefined);
}

export function badRequest(code: string, message: string, data?: unknown): Errors.MoleculerClientError {
  return new DomainError(message, 400, code, data);
}

export function unauthorized(message = "Authentication required"): Errors.MoleculerClientError {
  return new DomainError(message, 401, "UNAUTHORIZED");
}

export function forbidden(message = "Not allowed"): Errors.MoleculerClientError {
  return new DomainError(message, 403, "FORBIDDEN");
}

export function notFound(what: string, code = "RESOURCE_NOT_FOUND"): Errors.MoleculerClientError {
  return new DomainError(`${what} not found`, 404, code);
}

export function conflict(code: string, message: string): Errors.MoleculerClientError {
  return new DomainError(message, 409, code);
}
