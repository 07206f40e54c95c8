// Small DOM helpers the views share.
import { say } from "./api.js";

/** An element with a class and text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A button running `action`; its failure is said, not thrown. `label` names it when the text cannot. */
export function actionButton(text, action, label) {
  const b = el("button", "", text);
  b.type = "button";
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", () => Promise.resolve(action()).catch((e) => say(e.message)));
  return b;
}
