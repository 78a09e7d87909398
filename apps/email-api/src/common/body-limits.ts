// JSON body limits of the routes that carry more than the platform's 1 MB default (every other
// route keeps it): the size a valid body can reach, as body-parser reads it.

/** POST /v1/send: attachments of up to 10 MB decoded (about 13.4 MB as base64) next to the HTML body. */
export const SEND_BODY_LIMIT = '15mb';
/** Templates: an HTML body of up to 2,000,000 characters, up to 3 bytes each in UTF-8. */
export const TEMPLATE_BODY_LIMIT = '6mb';
/** Campaigns: the HTML body and the bodies of up to four A/B variants. */
export const CAMPAIGN_BODY_LIMIT = '15mb';
