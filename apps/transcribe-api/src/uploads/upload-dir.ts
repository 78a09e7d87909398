import { join } from 'node:path';
import type { TranscribeConfig } from '../config';

/** Where uploads wait for their job: `${DATA_DIR}/transcribe/uploads`. */
export const uploadDirOf = (config: Pick<TranscribeConfig, 'DATA_DIR'>): string => join(config.DATA_DIR, 'transcribe', 'uploads');
