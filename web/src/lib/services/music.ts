// The music library (from the audio files' tags) and the caller's playlists.
import { api } from './api';
import type { Operations } from '../api/schema.gen';

export type Artist = Operations['GET /api/v1/music/artists']['response']['items'][number];
export type Album = Operations['GET /api/v1/music/albums']['response']['items'][number];
export type Track = Operations['GET /api/v1/music/tracks']['response']['items'][number];
export type PlaylistInfo = Operations['GET /api/v1/playlists']['response']['playlists'][number];
export type Playlist = Operations['GET /api/v1/playlists/{id}']['response'];
export type ImportedPlaylist = Operations['POST /api/v1/playlists/import']['response'];
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
export const MUSIC_PAGE = 200;

export function listArtists(cursor?: string | null): Promise<Page<Artist>> {
  return api.call('GET /api/v1/music/artists', { query: { limit: MUSIC_PAGE, cursor: cursor ?? undefined } });
}

export function listAlbums(artist?: string | null, cursor?: string | null): Promise<Page<Album>> {
  return api.call('GET /api/v1/music/albums', {
    query: { artist: artist ?? undefined, limit: MUSIC_PAGE, cursor: cursor ?? undefined },
  });
}

export function listTracks(filter: { artist?: string | null; album?: string | null }, cursor?: string | null, limit = MUSIC_PAGE): Promise<Page<Track>> {
  return api.call('GET /api/v1/music/tracks', {
    query: { artist: filter.artist ?? undefined, album: filter.album ?? undefined, limit, cursor: cursor ?? undefined },
  });
}

/** Every track of an album (or artist), all pages. */
export async function allTracks(filter: { artist?: string | null; album?: string | null }): Promise<Track[]> {
  const out: Track[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Track> = await listTracks(filter, cursor, 500);
    out.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

export async function listPlaylists(): Promise<PlaylistInfo[]> {
  return (await api.call('GET /api/v1/playlists')).playlists;
}

export function createPlaylist(name: string): Promise<PlaylistInfo> {
  return api.call('POST /api/v1/playlists', { body: { name } });
}

export function getPlaylist(id: string): Promise<Playlist> {
  return api.call('GET /api/v1/playlists/{id}', { path: { id } });
}

export function renamePlaylist(id: string, name: string): Promise<PlaylistInfo> {
  return api.call('PATCH /api/v1/playlists/{id}', { path: { id }, body: { name } });
}

export function deletePlaylist(id: string): Promise<void> {
  return api.call('DELETE /api/v1/playlists/{id}', { path: { id } });
}

/** Replaces the playlist's items (file ids in order): adding, removing and reordering alike. */
export function setPlaylistItems(id: string, items: string[]): Promise<Playlist> {
  return api.call('PUT /api/v1/playlists/{id}/items', { path: { id }, body: { items } });
}

/** Appends tracks (file ids) to a playlist. */
export async function addToPlaylist(id: string, ids: string[]): Promise<Playlist> {
  const list = await getPlaylist(id);
  return setPlaylistItems(id, [...list.tracks.map((t) => t.node.id), ...ids]);
}

/** The playlist as an M3U8 download. */
export function playlistM3u8Url(id: string): string {
  return api.url('GET /api/v1/playlists/{id}/m3u8', { id });
}

/** A new playlist from an M3U8 file's text; `missing` counts the lines naming nothing readable. */
export function importPlaylist(name: string, text: string): Promise<ImportedPlaylist> {
  return api.call('POST /api/v1/playlists/import', { query: { name }, raw: { body: text, type: 'audio/x-mpegurl' } });
}

/** A playlist name from an M3U8 file's name ("Road trip.m3u8" → "Road trip"). */
export function playlistNameFromFile(fileName: string): string {
  return fileName.replace(/\.m3u8?$/i, '').trim() || fileName;
}
