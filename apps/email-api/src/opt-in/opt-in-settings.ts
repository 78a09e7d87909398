/** A project's double opt-in setting (`doubleOptIn` of the project). */
export interface OptInSettings {
  enabled: boolean;
  /** The template of the confirmation mail; null: none chosen, or deleted since (the built-in mail is sent). */
  templateId: string | null;
}

export const OPT_IN_OFF: OptInSettings = { enabled: false, templateId: null };
