// The feature generator on an Nx test tree holding the registry and the real sources of the apps
// it is run on: what it writes in each app's style, how it wires the root module, what it refuses.
import fs from 'node:fs';
import path from 'node:path';
import type { Tree } from '@nx/devkit';
import { createTree } from '@nx/devkit/testing';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const featureGenerator = require('./generator.cjs') as ((tree: Tree, options: Record<string, unknown>) => Promise<() => void>) & {
  singularOf(name: string): string;
};

const root = path.resolve(__dirname, '../../../../..');

function copyInto(tree: Tree, dir: string): void {
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) copyInto(tree, rel);
    else tree.write(rel, fs.readFileSync(path.join(root, rel)));
  }
}

/** services.json and the sources of `apps`. */
function workspaceTree(...apps: string[]): Tree {
  const tree = createTree();
  tree.write('services.json', fs.readFileSync(path.join(root, 'services.json')));
  for (const app of apps) copyInto(tree, `apps/${app}/src`);
  return tree;
}

const written = (tree: Tree, app: string) =>
  tree
    .listChanges()
    .map((c) => c.path)
    .filter((p) => p.startsWith(`apps/${app}/src/`) && !fs.existsSync(path.join(root, p)))
    .map((p) => p.replace(/\d{13}/, '<timestamp>'))
    .sort();
const read = (tree: Tree, file: string) => tree.read(file, 'utf8')!;

describe('feature generator', () => {
  describe('auth-api (repositories on entities, {detail} errors)', () => {
    const tree = workspaceTree('auth-api');
    const dir = 'apps/auth-api/src/shipping-notes';

    beforeAll(async () => {
      await featureGenerator(tree, { app: 'auth-api', name: 'shipping-notes' });
    });

    it('writes the feature folder with an entity, and a migration', () => {
      expect(written(tree, 'auth-api')).toEqual([
        'apps/auth-api/src/migrations/<timestamp>-CreateShippingNotes.ts',
        `${dir}/dto/shipping-note.dto.ts`,
        `${dir}/entities/shipping-note.entity.ts`,
        `${dir}/shipping-notes.controller.ts`,
        `${dir}/shipping-notes.e2e-spec.ts`,
        `${dir}/shipping-notes.module.ts`,
        `${dir}/shipping-notes.repository.ts`,
        `${dir}/shipping-notes.service.ts`,
      ]);
    });

    it('keeps the feature-folder rules: Transactions in the service, Database in the repository, the service exported', () => {
      const service = read(tree, `${dir}/shipping-notes.service.ts`);
      expect(service).toMatch(/constructor\(\s+private readonly transactions: Transactions,\s+private readonly shippingNotes: ShippingNotesRepository,\s+\)/);
      expect(service).not.toMatch(/\bDatabase\b/);
      expect(service).toContain("new ApiError(404, 'SHIPPING_NOTE_NOT_FOUND', `Shipping note ${id} not found`");
      const repository = read(tree, `${dir}/shipping-notes.repository.ts`);
      expect(repository).toContain('constructor(private readonly db: Database) {}');
      expect(repository).toContain('this.db.repository(ShippingNote)');
      expect(read(tree, `${dir}/shipping-notes.module.ts`)).toContain('exports: [ShippingNotesService],');
      const controller = read(tree, `${dir}/shipping-notes.controller.ts`);
      expect(controller).not.toMatch(/repository/i);
      expect(controller).toContain("@Controller('api/v1/shipping-notes')"); // the prefix of auth-api's controllers
      expect(read(tree, `${dir}/entities/shipping-note.entity.ts`)).toContain("@Entity({ name: 'shipping_notes' })\nexport class ShippingNote {");
    });

    it('documents and validates the DTOs like the app does', () => {
      const dto = read(tree, `${dir}/dto/shipping-note.dto.ts`);
      expect(dto).toMatch(/@ApiProperty\(\{ example: 'First shipping note', maxLength: 200 \}\)\s+@IsString\(\)\s+@IsNotEmpty\(\)\s+@MaxLength\(200\)\s+name: string;/);
      expect(dto).toContain('export class ListShippingNotesQueryDto {');
      expect(read(tree, `${dir}/shipping-notes.controller.ts`)).toContain('@ApiUnprocessableEntityResponse(');
    });

    it("creates the table in the service's schema, after the app's newest migration", () => {
      const file = tree.listChanges().find((c) => /migrations\/\d{13}-CreateShippingNotes\.ts$/.test(c.path))!.path;
      const timestamp = Number(/(\d{13})-/.exec(file)![1]);
      expect(timestamp).toBeGreaterThan(1763770100000);
      const migration = read(tree, file);
      expect(migration).toContain(`export class CreateShippingNotes${timestamp} implements MigrationInterface`);
      expect(migration).toContain('const s = schemaOf(q);');
      expect(migration).toContain('CREATE TABLE ${s}.shipping_notes (');
    });

    it('wires the module, the migration and the entity into the root module', () => {
      const module = read(tree, 'apps/auth-api/src/app.module.ts');
      expect(module).toContain("import { ShippingNotesModule } from './shipping-notes/shipping-notes.module';");
      expect(module).toContain("import { ShippingNote } from './shipping-notes/entities/shipping-note.entity';");
      expect(module).toMatch(/import \{ CreateShippingNotes(\d{13}) \} from '\.\/migrations\/\1-CreateShippingNotes';/);
      expect(module).toContain('export const AUTH_ENTITIES = [FiscalUser, LogisticsUser, RefreshToken, ShippingNote];');
      expect(module).toMatch(/export const AUTH_MIGRATIONS = \[CreateAuthTables1763770000000, CreateOutboxTables1763770100000, CreateShippingNotes\d{13}\];/);
      expect(module).toMatch(/ {8}LogisticsModule,\n {8}ShippingNotesModule,\n {6}\],/);
    });

    it("writes an e2e test that boots the app and expects auth-api's error shape", () => {
      const spec = read(tree, `${dir}/shipping-notes.e2e-spec.ts`);
      expect(spec).toContain('t = await createTestApp(authApiService);');
      expect(spec).toContain("const PATH = '/api/v1/shipping-notes';");
      expect(spec).toContain('expect(res.body).toEqual({ detail: `Shipping note ${MISSING} not found` });');
      expect(spec).toContain('await t.http.post(PATH).send({}).expect(422);');
    });
  });

  it('logistics-hooks (SQL repositories, the envelope): no entity, typed rows, envelope assertions', async () => {
    const tree = workspaceTree('logistics-hooks');
    await featureGenerator(tree, { app: 'logistics-hooks', name: 'shipping-notes' });
    const dir = 'apps/logistics-hooks/src/shipping-notes';
    expect(written(tree, 'logistics-hooks')).not.toContain(`${dir}/entities/shipping-note.entity.ts`);
    const repository = read(tree, `${dir}/shipping-notes.repository.ts`);
    expect(repository).toContain('interface ShippingNoteRow {');
    expect(repository).toContain("INSERT INTO ${this.db.table('shipping_notes')} (name) VALUES ($1) RETURNING ${COLUMNS}");
    expect(read(tree, `${dir}/shipping-notes.e2e-spec.ts`)).toContain("error: { code: 'SHIPPING_NOTE_NOT_FOUND', message: `Shipping note ${MISSING} not found`, statusCode: 404 },");
    const module = read(tree, 'apps/logistics-hooks/src/app.module.ts');
    expect(module).toContain('export const LOGISTICS_HOOKS_ENTITIES = [...messagingEntities];');
    expect(module).toMatch(/PortalModule\.forRoot\(tasks\),\n {8}ShippingNotesModule,\n/);
  });

  it('autostart-proxy ({error} errors): validation answers 400', async () => {
    const tree = workspaceTree('autostart-proxy');
    await featureGenerator(tree, { app: 'autostart-proxy', name: 'boxes' });
    const spec = read(tree, 'apps/autostart-proxy/src/boxes/boxes.e2e-spec.ts');
    expect(spec).toContain('expect(res.body).toEqual({ error: `Box ${MISSING} not found` });');
    expect(spec).toContain('await t.http.post(PATH).send({}).expect(400);');
    expect(read(tree, 'apps/autostart-proxy/src/boxes/boxes.controller.ts')).toContain("@Controller('boxes')");
  });

  it('takes the singular and the route from the options', async () => {
    const tree = workspaceTree('logistics-hooks');
    await featureGenerator(tree, { app: 'logistics-hooks', name: 'news', singular: 'news-item', path: '/api/news/' });
    const dir = 'apps/logistics-hooks/src/news';
    expect(read(tree, `${dir}/news.controller.ts`)).toContain("@Controller('api/news')");
    expect(read(tree, `${dir}/dto/news-item.dto.ts`)).toContain('export class NewsItemDto {');
    expect(read(tree, `${dir}/news.service.ts`)).toContain("'NEWS_ITEM_NOT_FOUND'");
  });

  it.each([
    ['shipping-notes', 'shipping-note'],
    ['categories', 'category'],
    ['boxes', 'box'],
    ['addresses', 'address'],
    ['inventory', 'inventory'],
  ])('names one record of %s %s', (name, singular) => {
    expect(featureGenerator.singularOf(name)).toBe(singular);
  });

  it.each([
    [{ app: 'nope-api', name: 'things' }, 'unknown app "nope-api": give one of auth-api, logistics-hooks'],
    [{ app: 'gateway', name: 'things' }, 'gateway has no database (services.json: "database": null)'],
    [{ app: 'demo-api', name: 'things' }, 'apps/demo-api/src/app.module.ts does not import DatabaseModule.forRoot: demo-api keeps no tables'],
    [{ app: 'logistics-hooks', name: 'tasks' }, 'apps/logistics-hooks/src/tasks exists already'],
    [{ app: 'logistics-hooks', name: 'Shipping_Notes' }, 'feature name must be kebab-case'],
    [{ app: 'logistics-hooks', name: 'recaps' }, 'logistics-hooks has a table recaps already'],
    [{ app: 'logistics-hooks', name: 'outbox' }, 'logistics-hooks has a table outbox already'],
    [{ app: 'auth-api', name: 'fiscal-users' }, 'apps/auth-api/src/app.module.ts already has FiscalUser'],
  ])('refuses %j and says why', async (options, message) => {
    const tree = workspaceTree('auth-api', 'logistics-hooks', 'gateway');
    // An app registered with a database whose root module has none.
    const registry = JSON.parse(read(tree, 'services.json'));
    registry.services.push({ name: 'demo-api', port: 3999, prefix: '/demo', database: 'demo', hpa: true });
    tree.write('services.json', JSON.stringify(registry));
    tree.write('apps/demo-api/src/app.module.ts', '@Module({ imports: [MessagingModule.forRoot()] })\nexport class DemoApiModule {}\n');
    const before = tree.listChanges().map((c) => c.path);
    await expect(featureGenerator(tree, options)).rejects.toThrow(message);
    expect(tree.listChanges().map((c) => c.path)).toEqual(before);
  });
});
