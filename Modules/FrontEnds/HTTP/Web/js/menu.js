// The views menu of narrow screens: on a phone the view links fold behind one button and open as a panel under the
// header; on wide screens the links stand in the header and the button is hidden (app.css).
export class Menu {
  constructor() {
    this.button = document.getElementById("menu-button");
    this.nav = document.getElementById("views");
    this.button.addEventListener("click", () => this.toggle(!this.isOpen));
    // Choosing a view, Esc or a tap elsewhere folds it again.
    this.nav.addEventListener("click", (e) => { if (e.target.closest("a")) this.toggle(false); });
    this.nav.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.isOpen) { e.stopPropagation(); this.toggle(false); this.button.focus(); }
    });
    document.addEventListener("click", (e) => {
      if (this.isOpen && !e.target.closest("#views, #menu-button")) this.toggle(false);
    });
  }

  get isOpen() { return this.button.getAttribute("aria-expanded") === "true"; }

  toggle(open) {
    this.button.setAttribute("aria-expanded", String(open));
    this.nav.classList.toggle("open", open);
    if (open) this.nav.querySelector("a")?.focus();
  }
}
