// Placeholders while images load: the dominant colour at once, then the ThumbHash decoded by the thumbhash
// library (a hashed asset whose address the script tag's data-thumbhash names, fetched only when a page has
// one). Both go when the image arrives. Set through the CSSOM: the CSP allows no inline style attributes.

type ThumbHashModule = { thumbHashToDataURL(hash: ArrayLike<number>): string };

const arrived = (im: HTMLImageElement) => im.complete && im.naturalWidth > 0;

function base64Bytes(text: string): Uint8Array {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export function initPlaceholders(thumbhashUrl: string | null): void {
  const loading = Array.from(document.querySelectorAll<HTMLImageElement>("img[data-color], img[data-placeholder]")).filter((im) => !arrived(im));
  for (const im of loading) {
    const color = im.getAttribute("data-color");
    if (color) im.style.backgroundColor = color;
    im.addEventListener(
      "load",
      () => {
        im.style.backgroundImage = "";
        im.style.backgroundColor = "";
        im.classList.remove("painted");
      },
      { once: true },
    );
  }
  const hashed = loading.filter((im) => im.getAttribute("data-placeholder"));
  if (!hashed.length || !thumbhashUrl) return;
  (import(thumbhashUrl) as Promise<ThumbHashModule>)
    .then((thumbhash) => {
      for (const im of hashed) {
        if (arrived(im)) continue;
        im.style.backgroundImage = `url(${thumbhash.thumbHashToDataURL(base64Bytes(im.getAttribute("data-placeholder") ?? ""))})`;
        im.classList.add("painted");
      }
    })
    .catch(() => {
      /* the colour stays: a placeholder is never worth an error */
    });
}
