/** Where the admin operations find the store: the data dir's SQLite, or PostgreSQL. */
export interface AdminStoreOptions {
  dataDir: string;
  databaseUrl?: string;
}
export interface CreatedProject {
  projectId: string;
  /** Shown once; only its SHA-256 is stored. */
  apiKey: string;
  appUrls: string[];
  whitelisted: boolean;
}
export interface RotatedKey {
  projectId: string;
  apiKey: string;
}
/** The operator's operations, shared by the `wharf project|app|key` commands and the admin API. */
export interface Admin {
  createProject(input: {
    name: string;
    appUrl: string;
    whitelisted?: boolean;
    owner?: string;
  }): Promise<CreatedProject>;
  setWhitelisted(projectId: string, whitelisted: boolean): Promise<void>;
  deleteProject(projectId: string): Promise<void>;
  addAppUrl(projectId: string, appUrl: string): Promise<{ appUrls: string[] }>;
  removeAppUrl(projectId: string, appUrl: string): Promise<{ appUrls: string[] }>;
  rotateKey(projectId: string): Promise<RotatedKey>;
  close(): Promise<void>;
}

/** Opens the notifications store for the operator's commands. Filled in by the notifications issue. */
export async function openAdmin(_options: AdminStoreOptions): Promise<Admin> {
  throw new Error('the notifications service has not landed yet');
}
