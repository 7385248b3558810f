// The entry of api.js, the hashed ES module app.js loads with import() where a page calls the API (the upload page,
// the passkey forms): @imghost/client and the upload flow stay out of the script every page loads.
export { answerOf, api, getToken } from "./api";
export { call } from "@imghost/client";
export { send } from "./upload-flows";
