/** A warning a run reports (stderr line, envelope `warnings`, `warning` event). */
export interface Warning {
  code: string;
  message: string;
}
