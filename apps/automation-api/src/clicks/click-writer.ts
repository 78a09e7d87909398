import { Injectable } from '@nestjs/common';
import { GroupCommit } from '@platform/database';
import { ClickCounter } from './click-counter';
import { ClicksRepository, type NewClick } from './clicks.repository';

export type { NewClick } from './clicks.repository';

/** Click statements in flight at once; clicks arriving meanwhile wait and go together. */
export const CLICK_WRITES_IN_FLIGHT = 2;
/** Clicks in one statement at most. */
export const CLICK_WRITE_MAX = 200;

/**
 * Stores the clicks of the redirect, grouping concurrent clicks into one statement (GroupCommit of
 * @platform/database): while CLICK_WRITES_IN_FLIGHT statements are running, the clicks that arrive
 * queue up and are written together by the next one (ClicksRepository.store), those read in one
 * turn of the event loop always together. Each click is answered only after the statement holding
 * it committed, so a 302 means stored, never lost; the counter is woken to count them
 * (ClickCounter). Under light load a click is written at once, alone. A statement that fails is
 * retried click by click, so that one click's problem is its own error and not its neighbours'.
 */
@Injectable()
export class ClickWriter {
  private readonly commit: GroupCommit<NewClick, string | null>;

  constructor(repo: ClicksRepository, counter: ClickCounter) {
    this.commit = new GroupCommit(
      async (clicks) => {
        const urls = await repo.store(clicks);
        if (urls.some((url) => url !== null)) counter.noteStored();
        return urls;
      },
      { inFlight: CLICK_WRITES_IN_FLIGHT, maxBatch: CLICK_WRITE_MAX, sameTurn: true, retryAlone: true },
    );
  }

  /** Resolves, once committed, with the link's target (null when the token is no link: nothing written). */
  click(click: NewClick): Promise<string | null> {
    return this.commit.add(click);
  }
}
