import { Errors } from "moleculer";

/**
 * A call to a service this deployment may lack (an older node in a rolling upgrade, a role
 * without it): null when no node offers the action, any other failure as it came.
 */
export function nullWhenAbsent<T>(call: Promise<T>): Promise<T | null> {
  return call.catch((err: unknown) => {
    if (err instanceof Errors.ServiceNotFoundError) return null;
    throw err;
  });
}
