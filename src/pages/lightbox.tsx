// The image viewer the client script (client/lightbox.ts) opens over a page's [data-lightbox] links (their
// data-full image, data-title caption): the public album's gallery, and the file page's one image.
/** At most this wide: a full-screen view on most displays, not the original (the viewer links to that). */
export const LIGHTBOX_WIDTH = 1600;

/** `single`: one image (the file page): no Previous / Next, and the link names the original. */
export function LightboxDialog(props: { single?: boolean }) {
  return (
    <dialog id="lightbox" class={props.single ? "lightbox single" : "lightbox"} aria-label="Image viewer">
      <div class="frame">
        <div class="controls">
          <span class="caption" aria-live="polite"></span>
          <button type="button" class="close">Close</button>
        </div>
        <img alt="" />
        <div class="controls">
          <button type="button" class="prev">← Previous</button>
          <a class="open" href="#">{props.single ? "Open the original" : "Open its page"}</a>
          <button type="button" class="next">Next →</button>
        </div>
      </div>
    </dialog>
  );
}
