// The earlier versions of a file over the REST API (accounts only: a public
// link's page never shows them). The versions panel's model gets these as one
// object, so its tests can hand it a fake.
import { api } from './api';
import { downloadUrl } from './files';
import type { Node, Version } from '../api/schema.gen';

export interface VersionsApi {
  /** the file's earlier versions, newest first */
  list(nodeId: string): Promise<Version[]>;
  /** makes a version the file's content again; the content it replaces becomes a version */
  restore(nodeId: string, versionId: string): Promise<Node>;
  /** deletes a version for good */
  remove(nodeId: string, versionId: string): Promise<void>;
  /** a URL that downloads a version's bytes (null: the current content), as an attachment named like the file */
  downloadUrl(nodeId: string, versionId: string | null): string;
}

export async function listVersions(nodeId: string): Promise<Version[]> {
  return (await api.call('GET /api/v1/nodes/{id}/versions', { path: { id: nodeId } })).items;
}

export function restoreVersion(nodeId: string, versionId: string): Promise<Node> {
  return api.call('POST /api/v1/nodes/{id}/versions/{vid}/restore', { path: { id: nodeId, vid: versionId }, body: {} });
}

export function deleteVersion(nodeId: string, versionId: string): Promise<void> {
  return api.call('DELETE /api/v1/nodes/{id}/versions/{vid}', { path: { id: nodeId, vid: versionId } });
}

/** Inline content URL of a version (Range requests work as for the file). */
export function versionContentUrl(nodeId: string, versionId: string): string {
  return api.url('GET /api/v1/nodes/{id}/versions/{vid}/content', { id: nodeId, vid: versionId });
}

export function versionDownloadUrl(nodeId: string, versionId: string): string {
  return api.url('GET /api/v1/nodes/{id}/versions/{vid}/content', { id: nodeId, vid: versionId }, { download: 1 });
}

export const versionsApi: VersionsApi = {
  list: listVersions,
  restore: restoreVersion,
  remove: deleteVersion,
  downloadUrl: (nodeId, versionId) => (versionId ? versionDownloadUrl(nodeId, versionId) : downloadUrl(nodeId)),
};
