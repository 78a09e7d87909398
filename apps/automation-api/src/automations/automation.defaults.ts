/** The spec's defaults of AutomationInput, applied on create and visible in every response. */
export const AUTOMATION_DEFAULTS = {
  name: 'Untitled automation',
  active: true,
  trigger: 'comment',
  media_ids: null,
  next_post: false,
  reel_caption: null,
  reel_publish_at: null,
  keywords: [] as string[],
  match_mode: 'word',
  exclude_keywords: [] as string[],
  public_replies: [] as string[],
  opening_text: "Hey {username}! Tap the button and I'll send you the link.",
  /** With follower check the default is FOLLOW_GATE_OPENING_BUTTON; without, no button: the link goes out in the first DM. */
  opening_button: null,
  follow_gate: false,
  gate_text: 'Almost there! Follow me real quick, then tap the button again and the link comes right away.',
  gate_button: 'I follow you now',
  link_url: null,
  link_text: "Here's your link 👇",
  link_button: 'Open',
  extra_links: [] as Array<{ title: string; url: string }>,
  follow_up_text: null,
  follow_up_minutes: 0,
  email_gate: false,
  email_text: 'Quick one: which email should I send it to? 📩',
  email_retry_text: "Hm, that didn't look like an email. Just type it in here 🙂",
  email_skip_if_known: true,
  webhook_url: null,
  webhook_secret: null,
  track_clicks: true,
  tags: [] as string[],
  once_per_user: true,
  priority: 0,
  notes: null,
  skip_if_answered: true,
} as const;

export const FOLLOW_GATE_OPENING_BUTTON = 'Send link';

/** Fields that only make sense for the comment trigger (refused for dm and story_reply). */
export const COMMENT_ONLY_FIELDS = ['media_ids', 'next_post', 'reel_caption', 'reel_publish_at', 'public_replies', 'skip_if_answered'] as const;

/** `webhook_secret` in every response. */
export const MASKED_SECRET = '***';
