// Wire types and schemas. This folder imports nothing else of ours.
export * from "./responses.js";
export * from "./rows.js";
export * from "./rollout_header.js";
export * from "./json_depth.js";
