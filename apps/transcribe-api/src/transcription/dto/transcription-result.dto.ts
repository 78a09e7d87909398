import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ENGINES, TASKS, type EngineName, type TranscriptionTask } from '../job-record';

export class SegmentDto {
  @ApiProperty({ example: 0 }) id: number;
  @ApiProperty({ description: 'start, seconds', example: 0 }) start: number;
  @ApiProperty({ description: 'end, seconds', example: 4.2 }) end: number;
  @ApiProperty({ example: ' Bonjour à tous.' }) text: string;
  @ApiPropertyOptional({ description: 'speaker label of a diarizing engine (`SPEAKER_00`; `Speaker 1` in SRT/VTT)', example: 'SPEAKER_00' }) speaker?: string;
}

export class WordDto {
  @ApiProperty({ example: ' Bonjour' }) word: string;
  @ApiProperty({ description: 'seconds' }) start: number;
  @ApiProperty({ description: 'seconds' }) end: number;
  @ApiPropertyOptional({ description: 'recognition probability' }) probability?: number;
  @ApiPropertyOptional({ example: 'SPEAKER_00' }) speaker?: string;
}

export class ResultMetadataDto {
  @ApiProperty({ example: 'meeting.mp3' }) filename: string;
  @ApiProperty({ description: 'bytes', example: 4812345 }) file_size: number;
  @ApiProperty({ description: 'container found in the bytes', example: 'audio/mpeg' }) media_type: string;
  @ApiProperty({ description: 'seconds spent in the engine', example: 12.4 }) processing_time: number;
  @ApiProperty({ nullable: true, type: String, example: 'fr' }) language: string | null;
  @ApiProperty({ enum: TASKS }) task: TranscriptionTask;
  @ApiProperty({ enum: ENGINES }) service: EngineName;
}

/** Body of `POST /transcribe`, and `result` of a finished job. */
export class TranscriptionResultDto {
  @ApiProperty({ example: 'Bonjour à tous.' }) text: string;
  @ApiProperty({ nullable: true, type: String, description: 'detected (or requested) language', example: 'fr' }) language: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'audio duration, seconds', example: 4.2 }) duration: number | null;
  @ApiProperty({ type: [SegmentDto], description: '`json`: id, start, end, text (and speaker); `verbose_json` adds seek, tokens, temperature, avg_logprob, compression_ratio, no_speech_prob and words' }) segments: SegmentDto[];
  @ApiPropertyOptional({ type: [WordDto], description: '`verbose_json` only: every word with its timing' }) words?: WordDto[];
  @ApiProperty({ enum: ENGINES }) engine: EngineName;
  @ApiProperty({ example: 'whisper-1' }) model: string;
  @ApiProperty({ description: 'seconds spent in the engine', example: 12.4 }) processing_time: number;
  @ApiProperty({ type: ResultMetadataDto }) metadata: ResultMetadataDto;
}
