import { fitWidth } from "./layout.ts";
import type { Screen } from "./tty.ts";

/** A running shell command on its own line, with the seconds it has run: `⠹ $ npm test  3.1s (Esc stops)`. */
export class CommandTicker {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly screen: Screen,
    private readonly paint: { dim(text: string): string },
    private readonly now: () => Date,
  ) {}

  start(command: string): void {
    this.stop();
    const started = this.now().getTime();
    const shown = fitWidth(command.replace(/\s+/g, " "), Math.max(10, this.screen.columns - 28));
    let frame = 0;
    const draw = () => {
      const seconds = ((this.now().getTime() - started) / 1000).toFixed(1);
      const spin = SPINNER[frame++ % SPINNER.length];
      this.screen.write(
        `\r\u001b[K${this.paint.dim(`${spin} $ ${shown}  ${seconds}s (Esc stops)`)}`,
      );
    };
    draw();
    this.timer = setInterval(draw, 100);
    this.timer.unref?.();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.screen.write("\r\u001b[K");
  }
}

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** 950 → "950", 12_300 → "12.3k", 1_000_000 → "1M". */
export function compactCount(value: number): string {
  if (value < 1000) return String(Math.round(value));
  if (value < 1_000_000) return `${Number((value / 1000).toFixed(1))}k`;
  return `${Number((value / 1_000_000).toFixed(1))}M`;
}
