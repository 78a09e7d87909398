// The campaign bench's SMTP sink in a process of its own, as a real mail server would be: the
// service's event loop does not also parse the SMTP it sends. Started with fork(); prints nothing,
// answers over IPC:
//   { op: 'url' }                                → { url }
//   { op: 'reset' }                              → { reset: true }
//   { op: 'wait', count, timeoutMs, campaignId } → { messages, recipients } once `count` mails arrived
//                                                  (recipients: distinct envelope recipients of the
//                                                  mails carrying X-Campaign-Id = campaignId, if given)
import { startFakeSmtpSink } from '@platform/testing';

type Request = { op: 'url' } | { op: 'reset' } | { op: 'wait'; count: number; timeoutMs: number; campaignId?: string };

async function main(): Promise<void> {
  const smtp = await startFakeSmtpSink();
  process.on('message', (req: Request) => {
    const reply = (m: object) => process.send!(m);
    if (req.op === 'url') reply({ url: smtp.url });
    else if (req.op === 'reset') {
      smtp.reset();
      reply({ reset: true });
    } else {
      smtp.waitForMessages(req.count, req.timeoutMs).then(
        (messages) => {
          const mine = req.campaignId === undefined ? messages : messages.filter((m) => m.headers['x-campaign-id'] === req.campaignId);
          reply({ messages: smtp.messages.length, recipients: new Set(mine.map((m) => m.to[0])).size });
        },
        (err: Error) => reply({ error: err.message }),
      );
    }
  });
  process.on('disconnect', () => void smtp.close().then(() => process.exit(0)));
  process.send!({ ready: true });
}

void main();
