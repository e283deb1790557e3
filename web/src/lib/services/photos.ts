// The photos timeline, its months and its places (filled by background jobs
// from the images' EXIF data).
import { api } from './api';
import type { Operations } from '../api/schema.gen';

export type PhotosPage = Operations['GET /api/v1/photos']['response'];
export type Photo = PhotosPage['items'][number];
export type Place = Operations['GET /api/v1/photos/places']['response']['places'][number];
export const PHOTOS_PAGE = 500;

export function listPhotos(cursor?: string | null, limit = PHOTOS_PAGE, signal?: AbortSignal): Promise<PhotosPage> {
  return api.call('GET /api/v1/photos', { query: { limit, cursor: cursor ?? undefined }, signal });
}

export async function photoMonths(): Promise<{ month: string; count: number }[]> {
  return (await api.call('GET /api/v1/photos/months')).months;
}

/** Places: photos with a position grouped in cells of `cell` degrees. */
export async function photoPlaces(cell: number): Promise<Place[]> {
  return (await api.call('GET /api/v1/photos/places', { query: { cell } })).places;
}
