import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ApiKeyAccess } from '../access/api-key.guard';
import { OceanTrackDto } from './dto/ocean-track.dto';
import { OceanTrackingService } from './ocean-tracking.service';

const DESCRIPTION = [
  'Tracks a container, bill of lading or booking with its carrier\'s **DCSA Track & Trace v2.2** API (`GET /v2/events` filtered by `equipmentReference`,',
  '`transportDocumentReference` or `carrierBookingReference`, every `Next-Page` followed), configured per carrier in `OCEAN_CARRIERS` (base URL, version,',
  'an API key in a named header, a bearer token or OAuth2 client credentials). A carrier without configuration → 503 `CARRIER_NOT_CONFIGURED`.',
  '',
  'Answer `{success, tracking_number, kind, carrier, carrier_name, vessel, vessel_imo, voyage, etd, eta, port, port_of_loading, port_of_discharge, status, events,',
  'source, fetched_at, age_seconds, stale}`. **Mapping**: ACT (actual) before EST (estimated) before PLN (planned), the latest created within one;',
  '`port_of_loading` = the first vessel departure\'s port (else the first LOAD), `port_of_discharge` = the last vessel arrival\'s port (else the last DISC);',
  '`etd` = the departure at the port of loading, `eta` = the arrival at the port of discharge; `vessel`/`voyage` = of the latest actual departure',
  '(else the ETD\'s call); `status` = the latest actual equipment event as a word (LOADED, DISCHARGED, GATE_IN, GATE_OUT, STUFFED, STRIPPED,',
  'PICKED_UP, DROPPED_OFF, INSPECTED, RESEALED, REMOVED; null without one); `port` = where the latest actual event happened; `events` oldest first.',
  '',
  '**Cache**: answers are stored in the database (shared by replicas) for `OCEAN_CACHE_TTL_SECONDS` (`source: cache`); concurrent identical requests',
  'make one carrier call. When the carrier fails, the failure becomes an error record (source `ocean-track`) and the last stored answer is returned',
  'with `stale: true` and its `age_seconds`; without one → 502 `CARRIER_UNAVAILABLE`.',
].join('\n');

@ApiTags('ocean tracking')
@Controller('ocean-track')
export class OceanTrackingController {
  constructor(private readonly ocean: OceanTrackingService) {}

  @Post()
  @HttpCode(200)
  @ApiKeyAccess()
  @ApiOperation({ summary: 'Track a container, bill of lading or booking (DCSA Track & Trace)', description: DESCRIPTION })
  @ApiOkResponse({ description: 'The normalized tracking' })
  @ApiUnprocessableEntityResponse({ description: '`INVALID_TRACKING_NUMBER` (names the expected check digit), `CARRIER_REQUIRED`, `VALIDATION_ERROR`' })
  @ApiServiceUnavailableResponse({ description: '`CARRIER_NOT_CONFIGURED`' })
  @ApiBadGatewayResponse({ description: '`CARRIER_UNAVAILABLE` (the carrier failed and nothing is stored)' })
  async track(@Body() dto: OceanTrackDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.ocean.track(dto)) };
  }
}
