// The tus 1.0.0 headers a browser on another origin may send and read (the API's CORS policy, extensions.md § 1).

/** Request headers a browser may send to the tus routes, and response headers it may read (CORS). */
export const TUS_REQUEST_HEADERS = ["Tus-Resumable", "Upload-Length", "Upload-Metadata", "Upload-Offset", "Upload-Checksum", "Upload-Defer-Length", "Upload-Concat", "X-HTTP-Method-Override"];
export const TUS_RESPONSE_HEADERS = [
  "Location",
  "Upload-Offset",
  "Upload-Length",
  "Upload-Metadata",
  "Upload-Expires",
  "Tus-Resumable",
  "Tus-Version",
  "Tus-Extension",
  "Tus-Max-Size",
  "Tus-Checksum-Algorithm",
  "Upload-File-Id",
  "Upload-File-Url",
  "Upload-Token",
  "Upload-Delete-Token",
];
