/**
 * An SMTP refusal with its reply code and enhanced status (RFC 3463); smtp-server answers an error
 * carrying `responseCode` with that code and the message.
 */
export class SmtpReply extends Error {
  readonly responseCode: number;

  constructor(code: number, enhanced: string, text: string) {
    super(`${enhanced} ${text}`);
    this.name = 'SmtpReply';
    this.responseCode = code;
  }
}

/** 550 5.1.1: nobody by that address here. */
export const unknownRecipient = (address: string) => new SmtpReply(550, '5.1.1', `<${address}>: no such recipient here`);
/** 552 5.3.4: the message is larger than the receiver takes. */
export const tooLarge = (max: number) => new SmtpReply(552, '5.3.4', `Message too big: at most ${max} bytes`);
/** 554 5.6.0: content that cannot be read (a malformed report or message). */
export const malformed = (why: string) => new SmtpReply(554, '5.6.0', `Malformed message: ${why}`);
/** 451 4.3.0: our own failure; the sender tries again later. */
export const tryLater = () => new SmtpReply(451, '4.3.0', 'Temporary failure, try again later');
/** 452 4.5.3: too many recipients in one transaction. */
export const tooManyRecipients = (max: number) => new SmtpReply(452, '4.5.3', `Too many recipients: at most ${max} per message`);
