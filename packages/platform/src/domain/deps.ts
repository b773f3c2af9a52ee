import type { ProjectsRepository } from '../db/repositories/projects.js';
import type { DeliveryPath } from '../delivery/path.js';
import type { PreferencesStore } from '../preferences/store.js';

/** What the developer API's services need; wired by the composition root (server.ts). */
export interface DeveloperDeps {
  projects: ProjectsRepository;
  preferences: PreferencesStore;
  delivery: DeliveryPath;
  /** Unix milliseconds. */
  clock: () => number;
  /** A new ULID. */
  newId: () => string;
}
