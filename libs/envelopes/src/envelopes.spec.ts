import { Controller, Get } from '@nestjs/common';
import { ApiProperty, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { ok, page } from './envelopes';
import { ApiOkEnvelope, ApiPageEnvelope } from './swagger';

class ContactDto {
  @ApiProperty() id: string;
  @ApiProperty() email: string;
}

@Controller('contacts')
class ContactsController {
  @Get('one')
  @ApiOkEnvelope(ContactDto)
  one() {
    return ok({ id: '1', email: 'a@example.com' });
  }

  @Get('many')
  @ApiOkEnvelope(ContactDto, { isArray: true, description: 'All contacts' })
  many() {
    return ok([]);
  }

  @Get()
  @ApiPageEnvelope(ContactDto)
  list() {
    return page([], { total: 0, page: 1, limit: 20 });
  }
}

describe('envelopes', () => {
  it('wraps data', () => {
    expect(ok({ id: 1 })).toEqual({ success: true, data: { id: 1 } });
    expect(page([1, 2], { total: 5, page: 1, limit: 2 })).toEqual({ success: true, data: [1, 2], meta: { total: 5, page: 1, limit: 2 } });
  });

  it('documents the envelopes in OpenAPI', async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [ContactsController] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const doc = SwaggerModule.createDocument(app, new DocumentBuilder().build());
      const ref = '#/components/schemas/ContactDto';
      expect(doc.components?.schemas?.ContactDto).toBeDefined();

      const one = (doc.paths['/contacts/one'].get?.responses['200'] as any).content['application/json'].schema;
      expect(one.properties.success).toEqual({ type: 'boolean', enum: [true] });
      expect(one.properties.data).toEqual({ $ref: ref });

      const many = doc.paths['/contacts/many'].get?.responses['200'] as any;
      expect(many.description).toBe('All contacts');
      expect(many.content['application/json'].schema.properties.data).toEqual({ type: 'array', items: { $ref: ref } });

      const list = (doc.paths['/contacts'].get?.responses['200'] as any).content['application/json'].schema;
      expect(list.required).toEqual(['success', 'data', 'meta']);
      expect(Object.keys(list.properties.meta.properties)).toEqual(['total', 'page', 'limit']);
    } finally {
      await app.close();
    }
  });
});
