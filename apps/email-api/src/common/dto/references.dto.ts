import { ApiProperty } from '@nestjs/swagger';

/** Where a custom field or event name is referenced (the usage routes of contacts and events). */
export class ReferenceDto {
  @ApiProperty({ description: 'Id of the segment, template or campaign' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: [String], example: ['body'], description: 'Where: `condition` (segments), `audienceCondition`, `subject`, `body`' })
  where: string[];
}

export class ReferencesDto {
  @ApiProperty({ type: [ReferenceDto], description: 'Segments whose condition names it (`data.<field>`, paths below it, or `event.<name>`)' })
  segments: ReferenceDto[];

  @ApiProperty({ type: [ReferenceDto], description: 'Templates using the field in a placeholder (`{{field}}`, `{{data.field…}}`) of subject or body; never events' })
  templates: ReferenceDto[];

  @ApiProperty({ type: [ReferenceDto], description: 'Campaigns using it in a placeholder of subject or body, or in their audience condition' })
  campaigns: ReferenceDto[];

  @ApiProperty({
    type: [ReferenceDto],
    description:
      'Workflows naming it: an event as their EVENT trigger (`trigger`) or in a WAIT_FOR_EVENT step; a field in a CONDITION step (`contact.data.<field>` and paths below it) or set by an UPDATE_CONTACT step (`step "<step name>"`)',
  })
  workflows: ReferenceDto[];
}
