// The base the app mounts the API at, shared by the app, the pages' in-process client and the browser script (a
// plain constant: the browser bundle inlines it). The paths under it are the OpenAPI document's, typed in
// @imghost/client (generated from docs/openapi.json), so no table of them is kept here.
export const API_BASE = "/api/v1";
