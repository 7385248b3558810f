// Public addresses of things, built from the configured BASE_URL / IMAGE_URL / CDN_URL / SITE_URL.

/** {image_url}/<file_id>: the short link. */
export const fileUrl = (env: Env, fileId: string) => `${env.IMAGE_URL}/${fileId}`;
export const thumbnailUrl = (env: Env, fileId: string) => `${env.IMAGE_URL}/${fileId}/thumb`;
/** {cdn_url}/uploads/<date>/<file_id>/<filename>; each segment percent-encoded. */
export const cdnUrl = (env: Env, storeKey: string) => `${env.CDN_URL}/${storeKey.split("/").map(encodeURIComponent).join("/")}`;
export const albumUrl = (env: Env, albumId: string) => `${env.SITE_URL}/a/${albumId}`;
export const filePageUrl = (env: Env, fileId: string) => `${env.SITE_URL}/f/${fileId}`;
export const apiUrl = (env: Env, path: string) => `${env.BASE_URL}${path}`;
