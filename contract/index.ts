/**
 * The wire contract, written once (contract/README line in the project README): the shapes
 * (models.ts), the REST routes (routes.ts) and what follows from them for the server: each routed
 * action's fastest-validator params, auth and idempotency options, the gateway's alias tables per
 * route group, and the TypeScript types of requests, params and results. Framework-free.
 * The folder's barrel, for importers outside it: files inside contract/ import each other directly.
 */
export * from "./schema";
export * from "./routes";
export * from "./wire";
export { sdkModels, sdkRoutes, sdkSocket } from "./sdk";
export * from "./actions";
export * from "./call";
export * from "./events";
export * from "./broker-events";
export { SCHEMAS } from "./models";
