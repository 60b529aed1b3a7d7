/** The conf that maps dbfs:/ and /Volumes inside Spark (unit: no Spark needed). */
import { describe, expect, it } from 'vitest';
import { fsConf, joinClassPath } from '../src/fs.js';

describe('fsConf', () => {
  it('maps dbfs:/ to the DBFS root and /Volumes through the server, with the jar on the class path', () => {
    const c = fsConf({
      fsJar: '/i/fs/minilake-fs.jar',
      dbfsRoot: '/d/dbfs/root',
      selfUrl: 'http://127.0.0.1:9',
      token: 't',
    });
    expect(c).toMatchObject({
      'spark.driver.extraClassPath': '/i/fs/minilake-fs.jar',
      'spark.executor.extraClassPath': '/i/fs/minilake-fs.jar',
      'spark.hadoop.fs.dbfs.impl': 'dev.minilake.fs.DbfsFileSystem',
      'spark.hadoop.fs.AbstractFileSystem.dbfs.impl': 'dev.minilake.fs.DbfsFs',
      'spark.hadoop.minilake.dbfs.root': '/d/dbfs/root',
      'spark.hadoop.fs.file.impl': 'dev.minilake.fs.VolumesFileSystem',
      'spark.hadoop.fs.AbstractFileSystem.file.impl': 'dev.minilake.fs.VolumesFs',
      'spark.hadoop.minilake.uc.uri': 'http://127.0.0.1:9',
      'spark.hadoop.minilake.uc.token': 't',
    });
  });

  it('maps nothing without the jar, and only what it knows without a DBFS root or server URL', () => {
    expect(fsConf({ dbfsRoot: '/d', selfUrl: 'http://x', token: 't' })).toEqual({});
    const noDbfs = fsConf({ fsJar: '/j.jar', selfUrl: 'http://x', token: 't' });
    expect(noDbfs['spark.hadoop.fs.dbfs.impl']).toBeUndefined();
    expect(noDbfs['spark.hadoop.fs.file.impl']).toBe('dev.minilake.fs.VolumesFileSystem');
    const noUrl = fsConf({ fsJar: '/j.jar', dbfsRoot: '/d', token: 't' });
    expect(noUrl['spark.hadoop.fs.file.impl']).toBeUndefined();
    expect(noUrl['spark.hadoop.fs.dbfs.impl']).toBe('dev.minilake.fs.DbfsFileSystem');
  });

  it("keeps a task's own class path after the engine's", () => {
    expect(joinClassPath('/a.jar', '/b.jar')).toBe('/a.jar:/b.jar');
    expect(joinClassPath('/a.jar', undefined)).toBe('/a.jar');
    expect(joinClassPath(undefined, '/b.jar')).toBe('/b.jar');
  });
});
