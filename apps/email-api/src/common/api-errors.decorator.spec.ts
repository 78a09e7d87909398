import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { ApiErrors } from './api-errors.decorator';

@ApiErrors({ 403: '`PROJECT_DISABLED`', 429: '`RATE_LIMIT_EXCEEDED`' })
@Controller('things')
class ThingsController {
  @Get(':id')
  @ApiOkResponse({ description: 'A thing' })
  @ApiErrors({ 404: '`THING_NOT_FOUND`', 403: '`FORBIDDEN`' })
  @ApiErrors({ 403: '`FORBIDDEN`' })
  one() {
    return {};
  }

  @Get()
  @Header('Content-Type', 'text/html')
  @ApiOkResponse({ content: { 'text/html': { schema: { type: 'string' } } } })
  page() {
    return '';
  }
}

describe('ApiErrors', () => {
  let responses: Record<string, Record<string, any>>;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [ThingsController] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const doc = SwaggerModule.createDocument(app, new DocumentBuilder().build());
    await app.close();
    responses = { one: doc.paths['/things/{id}'].get!.responses as never, page: doc.paths['/things'].get!.responses as never };
    expect(doc.components?.schemas?.['ErrorEnvelopeDto']).toBeDefined();
  });

  it('gives every error the envelope schema as JSON, keeps the success answer and adds 500', () => {
    expect(Object.keys(responses.one).sort()).toEqual(['200', '403', '404', '429', '500']);
    expect(responses.one['200'].description).toBe('A thing');
    for (const status of ['403', '404', '429', '500']) {
      expect(responses.one[status].content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } } });
    }
    // JSON even where the route itself produces HTML.
    expect(responses.page['200'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(responses.page['500'].content['application/json']).toBeDefined();
  });

  it('joins the descriptions of a status given by the class and the route, once each', () => {
    expect(responses.one['403'].description).toBe('`FORBIDDEN`\n\n`PROJECT_DISABLED`');
    expect(responses.page['403'].description).toBe('`PROJECT_DISABLED`');
    expect(responses.one['429'].headers['Retry-After']).toBeDefined();
  });
});
